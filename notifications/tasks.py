"""Celery tasks: small, idempotent wrappers around notifications' functions."""

from datetime import datetime, timedelta

from celery import shared_task
from django.conf import settings
from django.db import transaction

from helpers import clock_source
from helpers.broker import queue_each
from notifications import channel_delivery, digests, outbox, reminders


@shared_task(
    bind=True,
    max_retries=outbox.MAX_ATTEMPTS,
    acks_late=True,
    # A silent server must not hold a worker: the soft limit is a temporary failure; the
    # hard one leaves the row on the wire "sending", for sweep_outbox to report.
    soft_time_limit=outbox.SEND_SOFT_TIME_LIMIT,
    time_limit=outbox.SEND_TIME_LIMIT,
)
def deliver(self, message_id: int, now: str | None = None) -> str:
    """Send an outbox row and the others due with it; running it twice sends each once."""
    moment = datetime.fromisoformat(now) if now else None
    try:
        message = outbox.deliver(message_id, moment, along=outbox.BATCH - 1)
    except outbox.TemporaryFailure as exc:
        if self.request.is_eager:
            # In-process: the sweep retries, not the request that caused the email.
            return "retry later"
        # The broker counts down on wall time.
        countdown = clock_source.real_seconds(exc.retry_in)
        raise self.retry(exc=exc, countdown=countdown) from exc
    return message.status if message is not None else "not pending"


def sweep_ahead() -> timedelta:
    """How far ahead of its moment the minute's sweep queues rows, each with a countdown
    to when it is due: one period of the minute's jobs, on the games' clock. Rows due
    later stay out of the broker (Redis is no database: it may lose them)."""
    return clock_source.lasting(timedelta(seconds=settings.RAILMAIL_MINUTE_JOBS_EVERY))


def deliver_after_commit(message_id: int, due: datetime) -> None:
    """Queue delivery of row ``message_id`` after the commit, with a countdown to ``due``,
    if the next sweep may come too late for it; the sweep stays the backstop."""
    queue_after_commit(deliver, message_id, due)


def queue_after_commit(task, row_id: int, due: datetime) -> None:
    """Queue ``task`` for the outbox row ``row_id`` after the commit, with a countdown to
    ``due``, unless a sweep before ``due`` will queue it: a move whose turn email waits out
    its grace then makes no round trip to the broker."""
    now = clock_source.now()
    if due > now + sweep_ahead():
        return
    # robust: a broker that is down must not turn a committed move into an error page.
    wait = [wall_seconds_until(due, now)]
    transaction.on_commit(lambda: queue_each(task, [(row_id,)], wait), robust=True)


def wall_seconds_until(due: datetime, now: datetime) -> float:
    """The broker's wall seconds from ``now`` until ``due`` (none if it is past)."""
    return max(0.0, clock_source.real_seconds(due - now))


def queue_later(task, rows: list[tuple[int, datetime]], moment: datetime) -> None:
    """Queue ``task`` for each of ``rows`` (key, when due) due after ``moment``, with a
    countdown to when it is due, as its writer would have."""
    later = [(pk, at) for pk, at in rows if at > moment]
    now = clock_source.now()
    queue_each(
        task, [(pk,) for pk, _at in later], [wall_seconds_until(at, now) for _pk, at in later]
    )


@shared_task
def sweep_outbox(now: str | None = None) -> dict[str, int]:
    """Every minute: release expired claims, queue the rows due and those due before the
    next sweep, report rows stuck mid-send."""
    moment = datetime.fromisoformat(now) if now else clock_source.now()
    released = outbox.release_expired(moment)
    until = moment + sweep_ahead()
    at = moment.isoformat()
    rows = outbox.due_rows(until)
    due = [pk for pk, when in rows if when <= moment]
    # One task for each BATCH rows: a delivery takes along the rows due with its own.
    queue_each(deliver, [(pk, at) for pk in due[:: outbox.BATCH]])
    queue_later(deliver, rows, moment)
    notices = channel_delivery.due_notices(until)
    queue_each(deliver_channel_notice, [(pk, at) for pk, when in notices if when <= moment])
    queue_later(deliver_channel_notice, notices, moment)
    return {"released": released, "due": len(due), "stuck": outbox.report_stuck(moment)}


@shared_task(acks_late=True, soft_time_limit=20, time_limit=30)
def deliver_channel_notice(notice_id: int, now: str | None = None) -> str:
    """Send a channel notice; running it twice sends once, a failure waits for the sweep."""
    return channel_delivery.deliver(notice_id, datetime.fromisoformat(now) if now else None)


def deliver_channel_notice_after_commit(notice_id: int, due: datetime) -> None:
    """deliver_after_commit for a channel notice."""
    queue_after_commit(deliver_channel_notice, notice_id, due)


@shared_task
def send_reminders_and_digests(now: str | None = None) -> dict[str, int]:
    """Every minute: queue a task for each reminder and digest due."""
    moment = datetime.fromisoformat(now) if now else clock_source.now()
    at = moment.isoformat()
    due = reminders.due_reminders(moment)
    queue_each(send_reminder, [(pk, at) for pk in due])
    readers = digests.due_digests(moment)
    queue_each(send_digest, [(address, at) for address in readers])
    return {"reminders": len(due), "digests": len(readers)}


@shared_task(acks_late=True)
def send_reminder(game_id: int, now: str) -> bool:
    """Send the reminder of game ``game_id`` due at ``now``. Running it twice sends once."""
    return reminders.send_reminder(game_id, datetime.fromisoformat(now))


@shared_task(acks_late=True)
def send_digest(address: str, now: str) -> bool:
    """Send ``address`` the day's digest. Running it twice sends once."""
    return digests.send_digest(address, datetime.fromisoformat(now))
