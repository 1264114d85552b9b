"""The game clock, in one place: deadlines and timeouts, and vacations that pause it.

Deadlines live on the Game row (an indexed column of its projection), so the minute scan
(``games.tasks.scan_clock``) reads only games whose deadline has passed, never every game,
and hands each one to its own task; so too the vacations that end and the clocks to pause.
The scan itself only reads, through partial indexes: it never plays a bot nor appends an
event. Each task is idempotent: a timeout is an event recorded under the game's row lock
with the version the scan saw, and a vacation ends or pauses a clock once.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.core.cache import caches
from django.db import transaction
from django.db.models import IntegerField, OuterRef, Subquery, Value
from django.db.models.fields.json import KT
from django.db.models.functions import Cast, Coalesce
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from accounts.models import User
from games import rules
from games.derived import snapshots
from games.models import Event, Game, Seat
from games.services.autoplay import play_turn
from games.services.event_log import GameMovedOn, append_to_log, lock_game

log = logging.getLogger(__name__)

# Games (and vacations) handled per scan, so one scan never runs for long; the rest wait
# a minute.
BATCH = 200


# Where the minute scan leaves the time it last ran, for the health check (pbem/health.py):
# a cache every process shares (Redis in production, files under var/ locally).
LAST_SCAN_KEY = "games.clock.last_scan"


def record_scan(now: datetime) -> None:
    """Note that the minute scan ran at ``now``."""
    caches[settings.RAILMAIL_SHARED_CACHE].set(LAST_SCAN_KEY, now, timeout=None)


def last_scan() -> datetime | None:
    """When the minute scan last ran, if it ever did."""
    return caches[settings.RAILMAIL_SHARED_CACHE].get(LAST_SCAN_KEY)


def due_game_ids(now: datetime) -> list[int]:
    """The active games whose deadline has passed, the most overdue first."""
    due = Game.objects.filter(status=Game.Status.ACTIVE, deadline__lte=now).order_by("deadline")
    return list(due.values_list("pk", flat=True)[:BATCH])


def ended_vacations(now: datetime) -> list[int]:
    """The accounts whose vacation has run out (end_vacation ends each)."""
    ended = User.objects.filter(vacation_until__lte=now).order_by("vacation_until")
    return list(ended.values_list("pk", flat=True)[:BATCH])


def clocks_to_pause(now: datetime) -> list[int]:
    """The seats of players on vacation whose clock runs in an active game: a game that
    began during the vacation (pause_clock pauses each)."""
    last_clock_event = (
        Event.objects.filter(game=OuterRef("game"), type__in=rules.CLOCK_EVENTS)
        .annotate(seat=Cast(KT("data__seat"), IntegerField()))
        .filter(seat=OuterRef("position"))
        .order_by("-seq")
        .values("type")[:1]
    )
    seats = (
        Seat.objects.filter(
            user__vacation_until__gt=now, is_bot=False, game__status=Game.Status.ACTIVE
        )
        .annotate(last_clock=Coalesce(Subquery(last_clock_event), Value("")))
        .exclude(last_clock=rules.CLOCK_PAUSED)
        .order_by("pk")
    )
    return list(seats.values_list("pk", flat=True)[:BATCH])


def on_vacation(seat: Seat, now: datetime) -> bool:
    """Whether the seat's player is on vacation at ``now``.

    A second guard beside the paused clock (games.derived.projection): a game that began during
    the vacation has its clock paused by the scan's first step, but never times out first.
    """
    user = seat.user
    return bool(user and user.vacation_until and user.vacation_until > now)


def apply_deadline(game_id: int, now: datetime) -> str:
    """Apply the game's timeout rule if its deadline has passed; say what happened."""
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game_id)
        if game.deadline is None or game.deadline > now or game.status != Game.Status.ACTIVE:
            return "skipped"
        seat = game.seats.select_related("user").get(position=game.seat_to_move)
        if seat.is_bot or seat.autopilot:
            # Due at once by design (see games.derived.projection): the bot plays, no timeout.
            play_turn(game, seat, game.version, reason="autopilot")
            return "bot moves"
        if on_vacation(seat, now):
            return "paused"
        game = record_timeout(game, seat, game.version)
        if game.on_timeout == Game.OnTimeout.WAIT:
            return "timeouts"
        seat.refresh_from_db()
        play_turn(game, seat, game.version, reason="timeout")
        return "timeouts"


def record_timeout(game: Game, seat: Seat, expected_version: int) -> Game:
    """Record that ``seat`` let its move's deadline pass.

    Counts the timeouts in a row; when the game's rule is "a bot plays" and the count
    reaches ``bot_takeover_after``, the bot keeps the seat (``seat_taken_by_bot``) until
    the player takes it back. The caller then has the bot play the turn (or, when the
    game waits, nothing more happens until the player moves).
    """
    with transaction.atomic():
        locked = lock_game(game)
        if locked.version != expected_version or locked.seat_to_move != seat.position:
            raise GameMovedOn(expected_version, locked.version)
        seat = Seat.objects.select_for_update().get(pk=seat.pk)
        before = snapshots.current(locked)
        in_a_row = before.timeouts_in_a_row(seat.position) + 1
        events = [{"type": rules.TURN_TIMED_OUT, "seat": seat.position, "in_a_row": in_a_row}]
        takeover = (
            locked.on_timeout == Game.OnTimeout.BOT
            and not seat.autopilot
            and in_a_row >= locked.bot_takeover_after
        )
        if takeover:
            events.append({"type": rules.SEAT_TAKEN_BY_BOT, "seat": seat.position})
            seat.autopilot = True
        seat.timeouts_in_a_row = in_a_row
        seat.save(update_fields=["timeouts_in_a_row", "autopilot"])
        append_to_log(locked, before, events)
    return locked


# Vacations. A player on vacation has their clock paused in every active game where they
# hold a seat; the projection adds the paused time to the deadline (games.derived.projection).


class VacationError(ValueError):
    """A vacation that cannot be taken: none left, too long, or one already running."""


def start_vacation(user, days: int, now: datetime | None = None) -> datetime:
    """Start ``user``'s vacation of ``days`` days from ``now``; return when it ends.

    The days come off the allowance at once; end_vacation() gives back the whole days
    not used.
    """
    now = now or timezone.now()
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        if locked.vacation_until is not None and locked.vacation_until <= now:
            _end_vacation(locked, now)  # ran out but the scan has not ended it yet
        if locked.vacation_until is not None:
            raise VacationError(
                gettext("You are already on vacation: end it before starting another one.")
            )
        left = locked.vacation_days_left
        if not 1 <= days <= left:
            raise VacationError(
                ngettext(
                    "You have %(left)s vacation day left: choose between 1 and %(left)s.",
                    "You have %(left)s vacation days left: choose between 1 and %(left)s.",
                    left,
                )
                % {"left": left}
                if left
                else gettext("You have no vacation days left.")
            )
        locked.vacation_until = now + timedelta(days=days)
        locked.vacation_days_left -= days
        locked.save(update_fields=["vacation_until", "vacation_days_left"])
        pause_clocks(locked, now)
    user.vacation_until, user.vacation_days_left = locked.vacation_until, locked.vacation_days_left
    return locked.vacation_until


def end_vacation(user, now: datetime | None = None) -> int:
    """End ``user``'s vacation at ``now``, or when it ran out if that was earlier.

    Every clock it paused runs again from then. Returns the whole days given back to the
    allowance (a day begun counts as used). Ending a vacation twice does nothing more.
    """
    now = now or timezone.now()
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        returned = _end_vacation(locked, now)
    user.vacation_until, user.vacation_days_left = locked.vacation_until, locked.vacation_days_left
    return returned


def _end_vacation(user, now: datetime) -> int:
    if user.vacation_until is None:
        return 0
    ended = min(now, user.vacation_until)
    returned = (user.vacation_until - ended) // timedelta(days=1)
    user.vacation_until = None
    user.vacation_days_left += returned
    user.save(update_fields=["vacation_until", "vacation_days_left"])
    for seat in _active_seats(user):
        with transaction.atomic():
            game = lock_game(seat.game)
            if clock_paused(game, seat.position):
                event = {
                    "type": rules.CLOCK_RESUMED,
                    "seat": seat.position,
                    "at": ended.isoformat(),
                }
                append_to_log(game, snapshots.current(game), [event])
    return returned


def pause_clocks(user, now: datetime) -> int:
    """Pause ``user``'s clock in each active game where it is not paused yet; return how many.

    start_vacation() calls it; the minute scan has pause_clock() called for each seat of a
    game that began during a vacation.
    """
    seats = _active_seats(user)
    for seat in seats:
        seat.user = user  # on vacation from now: this transaction has saved it
    return sum(pause_clock(seat, now) for seat in seats)


def pause_clock(seat: Seat, now: datetime) -> bool:
    """Pause the seat's clock at ``now`` if its player is on vacation, its game is active
    and the clock runs; return whether it did. Running it twice pauses once."""
    if not on_vacation(seat, now) or clock_paused(seat.game, seat.position):
        return False  # the usual case: no need to lock the game
    with transaction.atomic():
        game = lock_game(seat.game)
        if game.status != Game.Status.ACTIVE or clock_paused(game, seat.position):
            return False
        event = {"type": rules.CLOCK_PAUSED, "seat": seat.position, "at": now.isoformat()}
        append_to_log(game, snapshots.current(game), [event])
    return True


def clock_paused(game: Game, position: int) -> bool:
    """Whether the seat's clock is paused now (its last clock event is a pause)."""
    last = (
        game.events.filter(type__in=rules.CLOCK_EVENTS, data__seat=position)
        .order_by("-seq")
        .first()
    )
    return last is not None and last.type == rules.CLOCK_PAUSED


def _active_seats(user) -> list[Seat]:
    return list(
        Seat.objects.filter(user=user, is_bot=False, game__status=Game.Status.ACTIVE)
        .select_related("game")
        .order_by("game_id", "position")
    )
