"""The game clock: what happens when a move's deadline passes, and vacations.

Deadlines live on the Game row (an indexed column of its projection), so the minute scan
(``games.tasks.scan_clock``) reads only games whose deadline has passed, never every game,
and hands each one to its own task. Each step is idempotent: a timeout is an event
recorded under the game's row lock with the version the scan saw, and a vacation ends or
pauses a clock once.
"""

from __future__ import annotations

import logging
from collections import Counter
from datetime import datetime

from django.conf import settings
from django.core.cache import caches
from django.db import transaction

from accounts.models import User
from games import services
from games.autoplay import play_turn
from games.models import Game, Seat

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


def vacations(now: datetime) -> dict[str, int]:
    """End the vacations that have run out, and pause clocks in games begun during one.

    Both steps are idempotent: a vacation ends once (its resume is recorded at the moment
    it ran out, not at the scan's), and a clock already paused is not paused again.
    """
    report: Counter = Counter()
    for user in User.objects.filter(vacation_until__lte=now).order_by("pk")[:BATCH]:
        services.end_vacation(user, now)
        report["vacations ended"] += 1
    for user in User.objects.filter(vacation_until__gt=now).order_by("pk")[:BATCH]:
        paused = services.pause_clocks(user, now)
        if paused:
            report["clocks paused"] += paused
    return dict(report)


def on_vacation(seat: Seat, now: datetime) -> bool:
    """Whether the seat's player is on vacation at ``now``.

    A second guard beside the paused clock (games.projection): a game that began during
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
            # Due at once by design (see games.projection): the bot plays, no timeout.
            play_turn(game, seat, game.version, reason="autopilot")
            return "bot moves"
        if on_vacation(seat, now):
            return "paused"
        game = services.record_timeout(game, seat, game.version)
        if game.on_timeout == Game.OnTimeout.WAIT:
            return "timeouts"
        seat.refresh_from_db()
        play_turn(game, seat, game.version, reason="timeout")
        return "timeouts"
