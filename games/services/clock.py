"""The game clock: what happens when a move's deadline passes, and vacations.

Deadlines live on the Game row (an indexed column of its projection), so the minute scan
(``games.tasks.scan_clock``) reads only games whose deadline has passed, never every game,
and hands each one to its own task; so too the vacations that end and the clocks to pause.
The scan itself only reads, through partial indexes: it never plays a bot nor appends an
event. Each task is idempotent: a timeout is an event recorded under the game's row lock
with the version the scan saw, and a vacation ends or pauses a clock once.
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.conf import settings
from django.core.cache import caches
from django.db import transaction
from django.db.models import IntegerField, OuterRef, Subquery, Value
from django.db.models.fields.json import KT
from django.db.models.functions import Cast, Coalesce

from accounts.models import User
from games import rules
from games.derived import snapshots
from games.models import Event, Game, Seat
from games.services import vacations
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
    """The accounts whose vacation has run out (vacations.end_vacation ends each)."""
    ended = User.objects.filter(vacation_until__lte=now).order_by("vacation_until")
    return list(ended.values_list("pk", flat=True)[:BATCH])


def clocks_to_pause(now: datetime) -> list[int]:
    """The seats of players on vacation whose clock runs in an active game: a game that
    began during the vacation (vacations.pause_clock pauses each)."""
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


def end_vacation(user_id: int, now: datetime) -> bool:
    """End the vacation of account ``user_id`` if it has run out at ``now``: its clocks run
    again from the moment it ran out. Running it twice ends it once."""
    user = User.objects.filter(pk=user_id, vacation_until__lte=now).first()
    if user is None:
        return False
    vacations.end_vacation(user, now)
    return True


def pause_clock(seat_id: int, now: datetime) -> bool:
    """Pause seat ``seat_id``'s clock at ``now`` if its player is on vacation and the clock
    runs (a game begun during the vacation). Running it twice pauses once."""
    seat = Seat.objects.select_related("game", "user").filter(pk=seat_id).first()
    if seat is None or not on_vacation(seat, now):
        return False
    return vacations.pause_clock(seat, now)


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
