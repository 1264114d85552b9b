"""Delivering outbox rows: claim, send once through Django's email API, record the result.

A row moves pending -> sending -> sent (or failed, or suppressed). The claim is one
conditional UPDATE, so of two tasks for the same row only one ever talks to the provider.
"""

import logging
import smtplib
from datetime import datetime, timedelta

from anymail.exceptions import AnymailAPIError, AnymailError, AnymailRecipientsRefused
from celery.exceptions import SoftTimeLimitExceeded
from django.core.mail import EmailMultiAlternatives, mail_admins
from django.db.models import Exists, F, OuterRef
from django.utils import timezone

from accounts.text import one_line
from notifications import compose
from notifications.models import UNSUPPRESSIBLE_KINDS, Message, Suppression

log = logging.getLogger(__name__)

# Attempts before a row that keeps failing for provider or network reasons is given up.
MAX_ATTEMPTS = 8
# A pending row this long past its next attempt has lost its task (the broker may drop
# messages when it restarts): the sweep queues it again.
LOST_AFTER = timedelta(minutes=5)
# A task queued for a row's time may start this much early (clocks of machines differ).
EARLY = timedelta(seconds=5)
# How long one delivery task may run. Every network step of a send gives up after
# EMAIL_TIMEOUT (SMTP) or anymail's REQUESTS_TIMEOUT, so the soft limit is only reached
# by a server that answers very slowly at every step; the hard limit kills the worker's
# process, which leaves the row "sending".
SEND_SOFT_TIME_LIMIT = 120
SEND_TIME_LIMIT = 150
# A row left "sending" this long means its worker died (or was killed at the hard limit)
# between claiming and finishing: the operator is told, once.
STUCK_AFTER = timedelta(seconds=SEND_TIME_LIMIT) + timedelta(minutes=1)


class TemporaryFailure(Exception):
    """The provider or the network failed; the row is pending again and may be retried."""

    def __init__(self, message: Message, retry_in: timedelta):
        self.message = message
        self.retry_in = retry_in
        super().__init__(f"Sending {message} failed: {message.error}")


def backoff(attempts: int) -> timedelta:
    """1, 2, 4 ... minutes between attempts, at most 4 hours."""
    return timedelta(minutes=min(2 ** max(attempts - 1, 0), 240))


def is_temporary(exc: BaseException) -> bool:
    """Whether a failed send may succeed later.

    SMTP: a 4xx answer is temporary, a 5xx one permanent (RFC 5321), and a network error
    (refused, reset, timed out, cut off) temporary. A provider's HTTP API: 429 and 5xx are
    temporary, any other 4xx permanent, no answer at all temporary. Anything else (a
    message that cannot be built, such as a header Django refuses) is permanent: trying
    again builds the same message.
    """
    if isinstance(exc, SoftTimeLimitExceeded):
        return True  # the server answered too slowly: like a timeout
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        codes = [code for code, _ in exc.recipients.values()]
        return bool(codes) and all(400 <= code < 500 for code in codes)
    if isinstance(exc, smtplib.SMTPResponseException):
        return not 500 <= exc.smtp_code < 600
    if isinstance(exc, smtplib.SMTPServerDisconnected):
        return True
    if isinstance(exc, smtplib.SMTPException):
        return False  # such as SMTPNotSupportedError: the server lacks what we need
    if isinstance(exc, AnymailRecipientsRefused):
        return False
    if isinstance(exc, AnymailAPIError):
        status = exc.status_code
        return status is None or status == 429 or status >= 500
    if isinstance(exc, AnymailError):
        return False  # anymail could not turn the message into an API call
    return isinstance(exc, OSError)  # refused, reset, unreachable, timed out


def describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:2000]


def deliver(message_id: int, now: datetime | None = None) -> Message | None:
    """Build and send one outbox row if it is pending and due; return it, or None if it
    was not ours to send.

    The email is built here (notifications.compose), from what the row records; one that
    is no longer needed ends "dropped". Raises TemporaryFailure when the provider or the
    network failed and the row should be tried again after ``retry_in``. Whatever else
    goes wrong, the row ends "failed" with the reason: an exception never leaves it
    "sending".
    """
    now = now or timezone.now()
    claimed = Message.objects.filter(
        pk=message_id, status=Message.Status.PENDING, next_attempt_at__lte=now + EARLY
    ).update(status=Message.Status.SENDING, claimed_at=now, attempts=F("attempts") + 1)
    if not claimed:
        # Sent, being sent by another worker, given up, or not due yet: nothing to do.
        return None
    message = _claimed(message_id)
    try:
        if message.stopped and message.kind not in UNSUPPRESSIBLE_KINDS:
            return _finish(message, Message.Status.SUPPRESSED)
        composed = compose.compose(message)
        if composed is None:
            return _finish(message, Message.Status.DROPPED)
        message.subject, message.body_text = composed.subject, composed.text
        message.body_html, message.headers = composed.html, composed.headers
        email = build_email(message)
        email.send()
    except Exception as exc:
        message.error = describe(exc)
        if not is_temporary(exc):
            return _give_up(message, exc)
        if message.attempts >= MAX_ATTEMPTS:
            return _give_up(message, exc, why=f"still failing after {message.attempts} attempts")
        retry_in = backoff(message.attempts)
        # The server answered with an error (or never answered), so nothing was
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


def _claimed(message_id: int) -> Message:
    """The claimed row with all that building its email reads: its game (with the game's
    creator and seats), its seat, and whether mail to its address is stopped."""
    stopped = Suppression.objects.filter(address=OuterRef("to"))
    return (
        Message.objects.select_related("game__created_by", "seat__user")
        .prefetch_related("game__seats")
        .annotate(stopped=Exists(stopped))
        .get(pk=message_id)
    )


def _give_up(message: Message, exc: Exception, why: str = "") -> Message:
    """Mark the row failed with the reason; tell the operator unless the address itself
    was refused (a mailbox that does not exist is the recipient's news, not a fault)."""
    refused = isinstance(exc, AnymailRecipientsRefused | smtplib.SMTPRecipientsRefused)
    error = f"Address rejected: {message.error}" if refused else message.error
    if why:
        error = f"{error} ({why})"
    failed = _finish(message, Message.Status.FAILED, error=error)
    if refused:
        log.warning("Outbox row %s: %s", message.pk, error)
    else:
        log.error(
            "Outbox row %s (%s to %s) failed: %s", message.pk, message.kind, message.to, error
        )
        tell_operator(
            f"Email {message.pk} failed: {message.kind} to {message.to}",
            f"The outbox row {message.pk} ({message.kind} to {message.to}, game "
            f"{message.game_id or '-'}) was not sent and will not be retried.\n\n"
            f"Reason: {error}\n",
        )
    return failed


def tell_operator(subject: str, body: str) -> None:
    """Mail the site's ADMINS directly, never through the outbox (whose delivery may be
    what is broken). A failure to do so is logged, never raised."""
    try:
        mail_admins(one_line(subject), body, fail_silently=False)
    except Exception:
        log.exception("Could not mail the operators: %s", subject)


def _finish(message: Message, status: str, **fields) -> Message:
    """Record how the row ended, with the email as built (kept, as it was sent)."""
    fields.setdefault("error", message.error if status != Message.Status.SENT else "")
    fields |= {
        "provider_id": message.provider_id,
        "subject": message.subject,
        "body_text": message.body_text,
        "body_html": message.body_html,
        "headers": message.headers,
        "status": status,
    }
    Message.objects.filter(pk=message.pk).update(**fields)
    for name, value in fields.items():
        setattr(message, name, value)
    return message


def build_email(message: Message) -> EmailMultiAlternatives:
    """Return the Django email for an outbox row as built, with its tags and metadata."""
    headers = dict(message.headers)
    email = EmailMultiAlternatives(
        # Rows written before names were checked may hold a line break: one line here.
        subject=one_line(message.subject),
        body=message.body_text,
        to=[message.to],
        headers=headers,
    )
    if message.body_html:
        email.attach_alternative(message.body_html, "text/html")
    # anymail passes these to the provider; other backends ignore them.
    email.tags = [message.kind]
    email.metadata = {"outbox_id": str(message.pk), "game": str(message.game_id or "")}
    # The provider must not rewrite links through its redirector: seat and sign-in links
    # are secrets, and an opened email is the player's business.
    email.track_clicks = False
    email.track_opens = False
    return email


def lost_rows(now: datetime, after: timedelta = LOST_AFTER) -> list[int]:
    """Pending rows whose task was lost: ``after`` past their next attempt (the broker may
    drop messages when it restarts). The sweep queues them again."""
    return list(
        Message.objects.filter(
            status=Message.Status.PENDING, next_attempt_at__lte=now - after
        ).values_list("pk", flat=True)[:500]
    )


def report_stuck(now: datetime) -> int:
    """Tell the operator, once, of each row left "sending" by a worker that died; return
    how many rows are stuck in all.

    A row left "sending" is never sent again automatically: the worker may have handed it
    to the server just before it died, and a second copy is worse than a late one. The
    operator gets one email per newly stuck row (mail_admins, outside the outbox) with
    what is known; the admin lists such rows (status "Being sent") and its "Send again"
    action resends them once the operator has checked the provider's log.
    """
    stuck = Message.objects.filter(status=Message.Status.SENDING, claimed_at__lte=now - STUCK_AFTER)
    new = list(stuck.filter(stuck_reported_at__isnull=True).order_by("pk")[:100])
    if new:
        # Claimed first, so that two sweeps running at once report each row once.
        reported = Message.objects.filter(
            pk__in=[row.pk for row in new], stuck_reported_at__isnull=True
        ).update(stuck_reported_at=now)
        if reported:
            lines = [
                f"- row {row.pk}: {row.kind} to {row.to}, game {row.game_id or '-'}, "
                f"Message-ID {compose.message_id(row)}, claimed at {row.claimed_at.isoformat()}, "
                f"attempt {row.attempts}{f', last error: {row.error}' if row.error else ''}"
                for row in new
            ]
            log.error("%d outbox row(s) stuck in 'sending': see the admin", len(new))
            tell_operator(
                f"{len(new)} email(s) stuck while being sent",
                "A worker died (or was killed at the task's time limit) while sending "
                "these emails. They may or may not have reached the server: check the "
                "provider's or the mail server's log for their Message-ID "
                '(below) before using the admin\'s "Send again", which may '
                "send a duplicate.\n\n" + "\n".join(lines) + "\n",
            )
    return stuck.count()


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
        status=Message.Status.PENDING,
        next_attempt_at=timezone.now(),
        claimed_at=None,
        stuck_reported_at=None,
    )
    return ids
