"""Celery tasks: small, idempotent wrappers around notifications' functions."""

from celery import shared_task

from notifications import outbox


@shared_task(bind=True, max_retries=outbox.MAX_ATTEMPTS, acks_late=True)
def deliver(self, message_id: int) -> str:
    """Send one outbox row. Running it twice sends it once."""
    try:
        message = outbox.deliver(message_id)
    except outbox.TemporaryFailure as exc:
        if self.request.is_eager:
            # In-process (no broker): the periodic sweep tries again later, rather than
            # retrying inside the request that caused the email.
            return "retry later"
        raise self.retry(exc=exc, countdown=exc.retry_in.total_seconds()) from exc
    return message.status if message is not None else "not pending"


@shared_task
def sweep_outbox() -> dict:
    return outbox.sweep()


@shared_task
def scan_deadlines() -> dict:
    from notifications import deadlines

    return deadlines.scan()
