"""Celery tasks for games: small, idempotent wrappers around games.services.autoplay and
games.services.clock."""

import logging
from datetime import datetime

from celery import shared_task

from accounts.models import User
from games.models import Seat
from games.services import autoplay, clock
from games.services.event_log import seats_at_table
from helpers import clock_source
from helpers.broker import queue_each

log = logging.getLogger(__name__)

# Batches, each a new task, so one game never holds a worker for long.
BOT_TURNS_PER_TASK = 20
# In-process (no broker) a task cannot queue its follow-up without recursing: it loops.
BOT_TURNS_IN_PROCESS = 2000


@shared_task(bind=True, acks_late=True, ignore_result=True)
def play_bot_turn(self, game_id: int, version: int) -> int:
    """Play the bot turns due in game ``game_id`` at ``version``; return how many."""
    eager = bool(self.request.is_eager)
    limit = BOT_TURNS_IN_PROCESS if eager else BOT_TURNS_PER_TASK
    played, game = autoplay.play_bot_turns(game_id, version, limit=limit)
    if (
        not eager
        and played == limit
        and game is not None
        and autoplay.turn_to_play(game, seats_at_table(game))
    ):
        play_bot_turn.delay(game.pk, game.version)
    return played


def _moment(now: str | None) -> datetime:
    return datetime.fromisoformat(now) if now else clock_source.now()


@shared_task
def scan_clock(now: str | None = None) -> dict[str, int]:
    """Hand each vacation run out, clock to pause and deadline passed to its own task; the
    scan only reads. ``now`` (ISO 8601) is for tests."""
    moment = _moment(now)
    clock.record_scan(clock_source.now())
    at = moment.isoformat()
    report = {}
    ended = clock.ended_vacations(moment)
    _queue(end_vacation, ended, at)
    if ended:
        report["vacations ended"] = len(ended)
    to_pause = clock.clocks_to_pause(moment)
    _queue(pause_clock, to_pause, at)
    if to_pause:
        report["clocks paused"] = len(to_pause)
    due = clock.due_game_ids(moment)
    _queue(apply_deadline, due, at)
    report["deadlines due"] = len(due)
    return report


def _queue(task, ids: list[int], at: str) -> None:
    queue_each(task, [(pk, at) for pk in ids])


@shared_task(acks_late=True)
def end_vacation(user_id: int, now: str | None = None) -> bool:
    """End account ``user_id``'s vacation if it has run out at ``now`` (one begun since the
    scan is left alone). Running it twice ends it once."""
    moment = _moment(now)
    user = User.objects.filter(pk=user_id, vacation_until__lte=moment).first()
    if user is None:
        return False
    clock.end_vacation(user, moment)
    return True


@shared_task(acks_late=True)
def pause_clock(seat_id: int, now: str | None = None) -> bool:
    """Pause seat ``seat_id``'s clock if its player is on vacation at ``now``."""
    seat = Seat.objects.select_related("game", "user").filter(pk=seat_id).first()
    return seat is not None and clock.pause_clock(seat, _moment(now))


@shared_task(acks_late=True)
def apply_deadline(game_id: int, now: str | None = None) -> str:
    """Apply game ``game_id``'s timeout rule if its deadline has passed at ``now``."""
    return clock.apply_deadline(game_id, _moment(now))
