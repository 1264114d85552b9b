"""Celery tasks: small, idempotent wrappers around notifications' functions."""

from datetime import datetime

from celery import shared_task
from django.db import transaction
from django.utils import timezone

from helpers.broker import queue_each
from notifications import digests, outbox, reminders


@shared_task(
    bind=True,
    max_retries=outbox.MAX_ATTEMPTS,
    acks_late=True,
    # A server that never answers must not hold a worker for ever. The soft limit ends
    # the send as a temporary failure; the hard one kills the worker's process, leaving
    # the row on the wire "sending" for sweep_outbox to report (and the batch's rows not
    # handed over claimed, until their claim runs out: outbox.CLAIM_LEASE).
    soft_time_limit=outbox.SEND_SOFT_TIME_LIMIT,
    time_limit=outbox.SEND_TIME_LIMIT,
)
def deliver(self, message_id: int, now: str | None = None) -> str:
    """Send an outbox row (if due ``now``), and the other rows due with it. Running it
    twice sends each once."""
    moment = datetime.fromisoformat(now) if now else None
    try:
        message = outbox.deliver(message_id, moment, along=outbox.BATCH - 1)
    except outbox.TemporaryFailure as exc:
        if self.request.is_eager:
            # In-process (no broker): the periodic sweep tries again later, rather than
            # retrying inside the request that caused the email.
            return "retry later"
        raise self.retry(exc=exc, countdown=exc.retry_in.total_seconds()) from exc
    return message.status if message is not None else "not pending"


def deliver_after_commit(message_id: int, due: datetime) -> None:
    """Queue delivery of outbox row ``message_id`` once the current transaction commits
    (at once outside one), if it is ``due`` now. A row due later (a your-turn email waits
    its grace period) gets no task: the minute's sweep queues it when its time comes, so
    no broker holds a task for later and a move publishes nothing."""
    if due > timezone.now():
        return
    # robust: a broker that is down must not turn a committed move into an error page;
    # the row stays pending and the sweep queues it.
    transaction.on_commit(lambda: deliver.delay(message_id), robust=True)


@shared_task
def sweep_outbox(now: str | None = None) -> dict[str, int]:
    """Every minute: release the claims that ran out before their rows were handed over,
    hand the rows that are due to delivery; tell the operator of rows stuck mid-send."""
    moment = datetime.fromisoformat(now) if now else timezone.now()
    released = outbox.release_expired(moment)
    due = outbox.due_rows(moment)
    # One task for each BATCH rows: a delivery takes along the rows due with its own.
    queue_each(deliver, [(pk, moment.isoformat()) for pk in due[:: outbox.BATCH]])
    return {"released": released, "due": len(due), "stuck": outbox.report_stuck(moment)}


@shared_task
def send_reminders_and_digests(now: str | None = None) -> dict[str, int]:
    """Every minute: hand each game whose reminder has come, and from the digest hour each
    digest reader still to be sent today's digest, to its own task."""
    moment = datetime.fromisoformat(now) if now else timezone.now()
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
