"""What a build plan changes in its owner's mail: no your-turn email while the plan plays
the turn, and the reason in words once it stops."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from games import rules
from games.derived import snapshots
from games.models import Plan, Seat
from games.services import plans


def at_turn(seat: Seat, snapshot: snapshots.Snapshot) -> tuple[bool, str | None]:
    """For ``seat``, to move at ``snapshot``: whether its plan plays this turn (then no
    your-turn email), and else the reason its plan stopped, to say in the email (None
    when there is nothing to say)."""
    if not seat.has_plan:
        return False, None  # read with the table: no query for a seat without a plan
    plan = Plan.objects.filter(seat=seat).first()
    if plan is None:
        return False, None
    if not plan.stopped:
        found = plans.next_step(plan, seat.position, snapshot)
        return (True, None) if not isinstance(found, str) else (False, found)
    # Stopped before this turn: said once, in the first your-turn email after the stop
    # (a stop by the seat's own move by hand needs no word).
    if plan.stopped == plans.BY_HAND:
        return False, None
    last_move = max(
        (
            event["seq"]
            for event in snapshot.round_events
            if event["type"] in rules.MOVE_EVENTS and event.get("seat") == seat.position
        ),
        default=0,
    )
    if plan.stopped_version is not None and plan.stopped_version >= last_move:
        return False, plan.stopped
    return False, None


def wait_for_vacation(seat: Seat, now: datetime | None = None) -> timedelta:
    """How long a plan's stop email waits: until the player's vacation ends (plans go
    on playing during one)."""
    now = now or timezone.now()
    user = seat.user
    if user is not None and user.vacation_until is not None and user.vacation_until > now:
        return user.vacation_until - now
    return timedelta(0)
