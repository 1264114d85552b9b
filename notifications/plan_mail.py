"""What a build plan changes in its owner's mail: no your-turn email while the plan plays
the turn, and the reason in words once it stops."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Max
from django.urls import reverse

from games import rules
from games.derived import snapshots
from games.links import make_token
from games.models import Event, Plan, PlanTurn, Seat
from games.services import plans
from games.words.city_names import city_name
from helpers import clock_source
from notifications.models import Message

# Emails the player never got: they do not end what the next one reports.
NOT_RECEIVED = (Message.Status.DROPPED, Message.Status.SUPPRESSED, Message.Status.FAILED)


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
    now = now or clock_source.now()
    user = seat.user
    if user is not None and user.vacation_until is not None and user.vacation_until > now:
        return user.vacation_until - now
    return timedelta(0)


def offers(seat: Seat, state: rules.GameState) -> list[dict]:
    """The plans the your-turn email offers: toward each missing city of the seat's hand,
    with its cost in tracks and turns and a one-tap link (naming the city's number in the
    hand, never its name), then all my cities (number 0)."""
    position = seat.position
    own = rules.network(state, position)
    if state.phase != rules.BUILDING or not own:
        return []
    token = make_token(seat)

    def url(number: int) -> str:
        return settings.SITE_URL + reverse("games:plan_confirm", args=[token, number])

    dist = rules.distances(rules.cost_graph(state.board, state.built, position), own)
    found = []
    for number, name in enumerate(state.hands[position], 1):
        cost = dist[state.board.city_point(name)]
        if 0 < cost < rules.INFINITY:
            found.append(
                {"name": city_name(name), "cost": cost, "turns": -(-cost // 2), "url": url(number)}
            )
    if found:
        found.append({"name": "", "cost": None, "turns": None, "url": url(0)})
    return found


def played_since(
    seat: Seat, version: int, *, before: int | None = None, digest_to: str = ""
) -> int:
    """How many turns the seat's plan played up to ``version`` since the last email the
    seat got about the game up to then (or since the game began). ``before``: the email's
    own outbox row, when it has one (only rows before it count: of two emails at one
    version, the first says it). ``digest_to``: for a daily digest, whose last digest
    counts as an email about the game too."""
    turns = PlanTurn.objects.filter(game_id=seat.game_id, seat=seat.position)
    if not turns.exists():
        return 0
    earlier = Message.objects.filter(seat=seat, facts__version__lte=version)
    if before is not None:
        earlier = earlier.filter(pk__lt=before)
    last = (
        earlier.exclude(status__in=NOT_RECEIVED)
        .order_by("-pk")
        .values_list("facts__version", flat=True)
        .first()
    ) or 0
    if digest_to:
        sent = (
            Message.objects.filter(kind="digest", to=digest_to, status=Message.Status.SENT)
            .order_by("-sent_at")
            .values_list("sent_at", flat=True)
            .first()
        )
        if sent is not None:
            seen = Event.objects.filter(game_id=seat.game_id, created_at__lte=sent)
            last = max(last, seen.aggregate(seq=Max("seq"))["seq"] or 0)
    return turns.filter(seq__gt=last, seq__lte=version).count()
