"""Celery tasks: small, idempotent wrappers around notifications' functions."""

from datetime import datetime, timedelta

from celery import shared_task
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


# Due within this long: a task with a countdown; later, the sweep, as far-future work is
# kept out of the broker (Redis may lose it).
SOON = timedelta(minutes=10)


def deliver_after_commit(message_id: int, due: datetime) -> None:
    """Queue delivery of row ``message_id`` after the commit, with a countdown to ``due`` if
    SOON, so an email goes when its grace ends; the sweep stays the backstop."""
    queue_after_commit(deliver, message_id, due)


def queue_after_commit(task, row_id: int, due: datetime) -> None:
    """Queue ``task`` for the outbox row ``row_id`` after the commit, with a countdown to
    ``due`` if SOON; later rows are left to the sweep."""
    now = clock_source.now()
    if due > now + SOON:
        return
    wait = max(0.0, clock_source.real_seconds(due - now))  # the broker's wall time
    if wait and task.app.conf.task_always_eager:
        return  # in-process, a countdown would run at once: the sweep sends it when due
    # robust: a broker that is down must not turn a committed move into an error page.
    # The argument is a key: plain repr() is enough, as in helpers.broker (Celery's
    # saferepr of it is a good part of the publish's work).
    options = {"argsrepr": repr((row_id,)), "kwargsrepr": "{}"}
    if wait:
        options["countdown"] = wait
    transaction.on_commit(lambda: task.apply_async((row_id,), **options), robust=True)


@shared_task
def sweep_outbox(now: str | None = None) -> dict[str, int]:
    """Every minute: release expired claims, queue due rows, report rows stuck mid-send."""
    moment = datetime.fromisoformat(now) if now else clock_source.now()
    released = outbox.release_expired(moment)
    due = outbox.due_rows(moment)
    # One task for each BATCH rows: a delivery takes along the rows due with its own.
    queue_each(deliver, [(pk, moment.isoformat()) for pk in due[:: outbox.BATCH]])
    notices = channel_delivery.due_notices(moment)
    queue_each(deliver_channel_notice, [(pk, moment.isoformat()) for pk in notices])
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
