"""Delivering outbox rows: claim, send once through Django's email API, record the result.

A row moves pending -> sending -> sent (or failed, or suppressed). The claim is one
conditional UPDATE, so of two tasks for the same row only one ever talks to the provider.
"""

import logging
import smtplib
from datetime import datetime, timedelta

from anymail.exceptions import AnymailError, AnymailRecipientsRefused
from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db.models import F
from django.utils import timezone

from notifications.models import Message, Suppression

log = logging.getLogger(__name__)

# Attempts before a row that keeps failing for provider or network reasons is given up.
MAX_ATTEMPTS = 8
# A pending row this long past its next attempt has lost its task (the broker may drop
# messages when it restarts): the sweep queues it again.
LOST_AFTER = timedelta(minutes=5)
# A row left "sending" this long means a worker died between claiming and finishing.
STUCK_AFTER = timedelta(minutes=15)


class TemporaryFailure(Exception):
    """The provider or the network failed; the row is pending again and may be retried."""

    def __init__(self, message: Message, retry_in: timedelta):
        self.message = message
        self.retry_in = retry_in
        super().__init__(f"Sending {message} failed: {message.error}")


def backoff(attempts: int) -> timedelta:
    """1, 2, 4 ... minutes between attempts, at most 4 hours."""
    return timedelta(minutes=min(2 ** max(attempts - 1, 0), 240))


def deliver(message_id: int) -> Message | None:
    """Send one outbox row if it is still pending; return it, or None if it was not ours.

    Raises TemporaryFailure when the provider or the network failed and the row should be
    tried again after ``retry_in``.
    """
    now = timezone.now()
    claimed = Message.objects.filter(pk=message_id, status=Message.Status.PENDING).update(
        status=Message.Status.SENDING, claimed_at=now, attempts=F("attempts") + 1
    )
    if not claimed:
        # Sent, being sent by another worker, or given up: a second task does nothing.
        return None
    message = Message.objects.get(pk=message_id)
    if Suppression.stops(message.to, message.kind):
        return _finish(message, Message.Status.SUPPRESSED)
    email = build_email(message)
    try:
        email.send()
    except (AnymailRecipientsRefused, smtplib.SMTPRecipientsRefused) as exc:
        # The provider refused the address itself: trying again cannot help.
        return _finish(message, Message.Status.FAILED, error=f"Address rejected: {exc}")
    except (AnymailError, smtplib.SMTPException, OSError) as exc:
        message.error = f"{type(exc).__name__}: {exc}"
        if message.attempts >= MAX_ATTEMPTS:
            return _finish(message, Message.Status.FAILED, error=message.error)
        retry_in = backoff(message.attempts)
        # The provider answered with an error (or never answered), so nothing was
        # accepted: releasing the claim is safe.
        Message.objects.filter(pk=message.pk, status=Message.Status.SENDING).update(
            status=Message.Status.PENDING, next_attempt_at=now + retry_in, error=message.error
        )
        raise TemporaryFailure(message, retry_in) from exc
    status = getattr(email, "anymail_status", None)
    if status is not None and status.status and status.status <= {"rejected", "invalid"}:
        return _finish(message, Message.Status.FAILED, error=f"Rejected: {status.status}")
    message.provider_id = (status.message_id or "") if status is not None else ""
    return _finish(message, Message.Status.SENT, sent_at=timezone.now())


def _finish(message: Message, status: str, **fields) -> Message:
    fields.setdefault("error", message.error if status != Message.Status.SENT else "")
    fields["provider_id"] = message.provider_id
    Message.objects.filter(pk=message.pk).update(status=status, **fields)
    message.refresh_from_db()
    return message


def message_id_header(message: Message) -> str:
    """A Message-ID fixed by the row, so that any resend is recognised as the same email."""
    return f"<railmail.{message.pk}@{_mail_domain()}>"


def game_thread_id(game_id: int) -> str:
    """The Message-ID every email of one game refers to, so mail clients group them."""
    return f"<railmail.game.{game_id}@{_mail_domain()}>"


def _mail_domain() -> str:
    from email.utils import parseaddr

    return parseaddr(settings.DEFAULT_FROM_EMAIL)[1].partition("@")[2] or "localhost"


def build_email(message: Message) -> EmailMultiAlternatives:
    """Return the Django email for an outbox row, with the headers, tags and metadata."""
    headers = {"Message-ID": message_id_header(message), **message.headers}
    email = EmailMultiAlternatives(
        subject=message.subject,
        body=message.body_text,
        to=[message.to],
        headers=headers,
    )
    if message.body_html:
        email.attach_alternative(message.body_html, "text/html")
    # anymail passes these to the provider; other backends ignore them.
    email.tags = [message.kind]
    email.metadata = {"outbox_id": str(message.pk), "game": str(message.game_id or "")}
    return email


def lost_rows(now: datetime) -> list[int]:
    """Pending rows whose task was lost: long past their next attempt (the broker may drop
    messages when it restarts). The sweep queues them again."""
    return list(
        Message.objects.filter(
            status=Message.Status.PENDING, next_attempt_at__lte=now - LOST_AFTER
        ).values_list("pk", flat=True)[:500]
    )


def count_stuck(now: datetime) -> int:
    """Count, and log, the rows left "sending" by a worker that died mid-send.

    A row left "sending" is never sent again automatically: the worker may have handed it
    to the provider just before it died, and a second copy is worse than a late one. The
    admin lists such rows (status "Being sent") and an operator who has checked the
    provider's log can send them again with the admin's "Send again" action.
    """
    stuck = Message.objects.filter(
        status=Message.Status.SENDING, claimed_at__lte=now - STUCK_AFTER
    ).count()
    if stuck:
        log.warning("%d outbox row(s) stuck in 'sending': see the admin", stuck)
    return stuck


def requeue(message_ids) -> list[int]:
    """Put stuck or failed rows back to pending (an operator's decision); return their
    ids, for the caller to queue."""
    ids = list(
        Message.objects.filter(
            pk__in=list(message_ids),
            status__in=[Message.Status.SENDING, Message.Status.FAILED],
        ).values_list("pk", flat=True)
    )
    Message.objects.filter(pk__in=ids).update(
        status=Message.Status.PENDING, next_attempt_at=timezone.now(), claimed_at=None
    )
    return ids
