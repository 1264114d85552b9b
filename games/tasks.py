"""Celery tasks for games: small, idempotent wrappers around games.autoplay and games.clock."""

import logging
from collections.abc import Iterable
from datetime import datetime

from celery import shared_task
from django.utils import timezone
from kombu.exceptions import BatchPublishError, OperationalError

from games import autoplay, clock

log = logging.getLogger(__name__)

# Bot turns per task run. With a worker, a table of bots moves on in batches of this many,
# each batch a new task, so one game never holds a worker for long.
BOT_TURNS_PER_TASK = 20
# Run in-process (no broker), a task cannot queue its follow-up without recursing: it
# plays on in its loop instead, up to a whole game (far more turns than any real game).
BOT_TURNS_IN_PROCESS = 2000


@shared_task(bind=True, acks_late=True, ignore_result=True)
def play_bot_turn(self, game_id: int, version: int) -> int:
    """Play the bot turns due in game ``game_id`` at ``version``; return how many.

    Does nothing if the game has moved on or no bot is to move.
    """
    eager = bool(self.request.is_eager)
    limit = BOT_TURNS_IN_PROCESS if eager else BOT_TURNS_PER_TASK
    played, game = autoplay.play_bot_turns(game_id, version, limit=limit)
    if not eager and played == limit and game is not None and autoplay.bot_to_move(game):
        play_bot_turn.delay(game.pk, game.version)
    return played


def _moment(now: str | None) -> datetime:
    return datetime.fromisoformat(now) if now else timezone.now()


@shared_task
def scan_clock(now: str | None = None) -> dict[str, int]:
    """Every minute: hand each vacation that has run out, each clock to pause (a game
    begun during a vacation) and each game whose deadline has passed to its own task.
    ``now`` (ISO 8601) is for tests.

    The scan only reads (index scans of the few rows concerned); the tasks append the
    events, play the bots and write the emails.
    """
    moment = _moment(now)
    clock.record_scan(timezone.now())
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


def queue_each(task, calls: Iterable[tuple]) -> None:
    """Queue ``task`` once with each argument tuple of ``calls``, over one connection to
    the broker and, on Redis, in one round trip: the minute's jobs hand out many small
    tasks, and a round trip for each cost more than the scan itself.

    kombu's ``Producer.batch()`` (kombu 5.7) buffers the publishes in one
    non-transactional Redis pipeline, sent when the block ends. Each call stands alone:
    one that fails (its arguments cannot be serialized, say) is logged and the others
    are queued. A fault of the broker's is another matter: it fails every call alike, so
    the first one stops the batch, and if sending the pipeline fails, which of its tasks
    arrived is unknown. Either is logged once, not raised, and loses nothing: every task
    is idempotent and its work stays due in the database, where the next minute's scan
    finds it again (a task that did arrive then runs twice and does its work once).

    Run in-process (no broker), each call runs at once, and one broken game or account
    does not stop the others either.
    """
    calls = list(calls)
    if not calls:
        return
    if task.app.conf.task_always_eager:
        for args in calls:
            _send(task, args)
        return
    try:
        with task.app.producer_or_acquire() as producer, producer.batch():
            options = {}
            for args in calls:
                if _send(task, args, BROKER_FAULTS, producer=producer, **options):
                    options = ONLY_BUFFERED
    except BROKER_FAULTS:
        log.exception(
            "queueing %d %s tasks failed; the next scan finds their work again",
            len(calls),
            task.name,
        )


# Once one call has gone through (declaring the task's queue on the broker, and
# retrying that if the connection fails), the others of the batch (the same task, so
# the same queue) only add a command to the pipeline: no queue to declare again,
# nothing on the network to retry. With the repr below, these take 40% off Celery's time per task.
ONLY_BUFFERED = {"declare": [], "retry": False}

# The broker unreachable (after Celery's retries), or the batch's pipeline failed.
BROKER_FAULTS = (OperationalError, BatchPublishError)


def _send(task, args: tuple, stop_on: tuple[type[Exception], ...] = (), **options) -> bool:
    """Queue (or, in-process, run) ``task`` with ``args``; say whether it went. A failure
    is logged, not raised, but for those of ``stop_on``, which concern every call alike."""
    try:
        # repr(), not Celery's saferepr (a fifth of the time to queue a task): the
        # arguments are ids, addresses and ISO timestamps, shown whole in the worker's log.
        task.apply_async(args, argsrepr=repr(args), kwargsrepr="{}", **options)
    except stop_on:
        raise
    except Exception:
        log.exception("%s of %s failed", task.name, args[0])
        return False
    return True


@shared_task(acks_late=True)
def end_vacation(user_id: int, now: str | None = None) -> bool:
    """End account ``user_id``'s vacation if it has run out at ``now``."""
    return clock.end_vacation(user_id, _moment(now))


@shared_task(acks_late=True)
def pause_clock(seat_id: int, now: str | None = None) -> bool:
    """Pause seat ``seat_id``'s clock if its player is on vacation at ``now``."""
    return clock.pause_clock(seat_id, _moment(now))


@shared_task(acks_late=True)
def apply_deadline(game_id: int, now: str | None = None) -> str:
    """Apply game ``game_id``'s timeout rule if its deadline has passed at ``now``."""
    return clock.apply_deadline(game_id, _moment(now))
