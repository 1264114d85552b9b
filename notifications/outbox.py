"""Delivering outbox rows: claim, send once through Django's email API, record the result.

A row moves pending -> claimed -> sending -> sent (or failed, suppressed, dropped). The
claim is one conditional UPDATE, so of two tasks for the same row only one ever has it.
A claimed row is handed to the mail server only after a second conditional UPDATE has
marked it "sending" (while the claim is still this delivery's and still alive): "sending"
means "may have gone out", and only the row on the wire is ever in it. A claim that is
never handed over runs out by itself (CLAIM_LEASE) and the sweep puts the row back to
pending, so a dead worker or database strands nothing that did not go out.
"""

import logging
import secrets
import smtplib
import time
from datetime import datetime, timedelta
from email.mime.image import MIMEImage

import requests
from anymail.exceptions import AnymailAPIError, AnymailError, AnymailRecipientsRefused
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.mail import EmailMultiAlternatives, get_connection, mail_admins
from django.db import InterfaceError, OperationalError, transaction
from django.db import connection as database
from django.db.models import Count, F, Q, QuerySet
from django.utils import timezone

from helpers.text import one_line
from notifications import compose
from notifications.models import Message, Suppression

log = logging.getLogger(__name__)

# Rows one delivery takes: the one it was woken for and those due along with it.
BATCH = 50
# Attempts before a row that keeps failing for provider or network reasons is given up.
MAX_ATTEMPTS = 8
# A task queued for a row's time may start this much early (clocks of machines differ).
EARLY = timedelta(seconds=5)
# How long one delivery task may run. Every network step of a send gives up after
# EMAIL_TIMEOUT (SMTP) or anymail's REQUESTS_TIMEOUT (10 s by default), so the soft limit
# is only reached by a server that answers very slowly at every step; the hard limit kills
# the worker's process, which leaves the row on the wire "sending".
SEND_SOFT_TIME_LIMIT = 120
SEND_TIME_LIMIT = 150
# Within a delivery (seconds from its start): no row is handed to the mail server after
# HAND_OVER_FOR (the rest are released); outcomes the database could not take are tried
# again until WRITE_BACK_FOR, before the soft time limit.
HAND_OVER_FOR = 60
WRITE_BACK_FOR = SEND_SOFT_TIME_LIMIT - 15
# A claim's life. It outlasts the task's hard time limit (counted from the task's start,
# before the claim), so a delivery whose claim has run out is dead, or stopped by its own
# hand-over check (which refuses a claim this old): a slow live worker and a new one never
# both send a row. The sweep (every minute) releases such rows, so a row never handed
# over is due again within CLAIM_LEASE plus a minute of its claim.
CLAIM_LEASE = timedelta(seconds=SEND_TIME_LIMIT + 30)
# A row left "sending" this long means its worker died (or was killed at the hard limit)
# between handing it over and recording the answer: the operator is told, once.
STUCK_AFTER = timedelta(seconds=SEND_TIME_LIMIT) + timedelta(minutes=1)
# What the database raises while it is away (restarting, unreachable, connection cut).
DATABASE_AWAY = (OperationalError, InterfaceError)


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


def stops_the_batch(exc: BaseException) -> bool:
    """Whether a failed send says the mail server itself is unwell (no answer in time, the
    connection refused or cut), so that the batch's other rows would fare no better: they
    are released at once instead of each waiting its own timeouts. An answer about one
    message (a 4xx or 5xx, a provider's error status) does not stop the batch."""
    if isinstance(exc, SoftTimeLimitExceeded | smtplib.SMTPServerDisconnected):
        return True
    if isinstance(exc, smtplib.SMTPException):
        return False  # an answer (SMTPException is an OSError: tested first)
    if isinstance(exc, AnymailAPIError):
        return exc.status_code is None  # no HTTP answer at all
    return isinstance(exc, OSError)  # refused, reset, unreachable, timed out


def may_have_gone(exc: BaseException, connection) -> bool:
    """Whether a send that raised ``exc`` may still have delivered its message: it went
    out whole and no answer came back (notifications.smtp says so for SMTP; for a
    provider's API, a request sent whose answer timed out). Never when a provider
    deduplicates on our key (RAILMAIL_IDEMPOTENCY_HEADER): trying again is safe there."""
    if settings.RAILMAIL_IDEMPOTENCY_HEADER:
        return False
    if isinstance(exc, smtplib.SMTPResponseException | AnymailRecipientsRefused):
        return False  # an answer came back
    if isinstance(exc, requests.exceptions.ReadTimeout):
        return True  # anymail's: the request went out, its answer never came
    told = getattr(connection, "may_have_sent", None)
    return stops_the_batch(exc) and callable(told) and told()


def describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:2000]


def deliver(message_id: int, now: datetime | None = None, *, along: int = 0) -> Message | None:
    """Build and send outbox row ``message_id`` if it is pending and due, and with it up to
    ``along`` other rows due now; return the row, or None if it was not ours to send.

    A worker woken for one row takes along the others that are due (a round's end, a
    burst after an outage): one claim, one read, one connection to the mail server. Each
    email is built here (notifications.compose) from what its row records; one that is no
    longer needed ends "dropped". Each row is marked "sending" just before it is handed
    over, in the same transaction that records the answer for the row before it, so at
    most the row on the wire is ever in doubt. Raises TemporaryFailure when the provider
    or the network failed for this row and it should be tried again after ``retry_in`` (a
    row taken along is tried again by the sweep). Whatever else goes wrong, a row ends
    "failed" with the reason: an exception leaves a row "sending" only when its message
    went out whole and no answer came back (may_have_gone).
    """
    now = now or timezone.now()
    started = time.monotonic()
    token = secrets.token_hex(16)
    rows = {
        row.pk: row
        for row in _deliver_claimed(_claim(message_id, now, along, token), now, token, started)
    }
    row = rows.get(message_id)
    if row is not None and row.status == Message.Status.PENDING and not row.released:
        raise TemporaryFailure(row, row.next_attempt_at - now)
    return row


def _claim(message_id: int, now: datetime, along: int, token: str) -> list[Message]:
    """Claim the row, and up to ``along`` others due now, by one conditional UPDATE: of two
    workers, only one ever gets a row. Return the rows this call claimed, with everything
    building their emails reads."""
    wanted = Q(pk=message_id)
    if along:
        due = Message.objects.filter(
            status=Message.Status.PENDING, next_attempt_at__lte=now
        ).exclude(pk=message_id)
        wanted |= Q(pk__in=due.order_by("next_attempt_at").values("pk")[:along])
    # The claim's life runs on the real clock, whatever moment the task was queued for.
    claimed_at = timezone.now()
    claimed = Message.objects.filter(
        wanted, status=Message.Status.PENDING, next_attempt_at__lte=now + EARLY
    ).update(status=Message.Status.CLAIMED, claimed_at=claimed_at, claim=token)
    if not claimed:
        # Sent, being sent by another worker, given up, or not due yet: nothing to do.
        return []
    # The partial index of claimed rows finds them by claimed_at.
    rows = with_what_emails_read(
        Message.objects.filter(status=Message.Status.CLAIMED, claimed_at=claimed_at, claim=token)
    )
    # Mail stopped since the rows were queued (a bounce, an unsubscribe) is not sent.
    stopped = Suppression.stopping((row.to, row.kind) for row in rows)
    for row in rows:
        row.stopped = (row.to, row.kind) in stopped
        row.released = False  # whether the batch stopped before handing it over
    return rows


class _DatabaseAway(Exception):
    """The database did not answer while the batch was under way."""


def _deliver_claimed(
    rows: list[Message], now: datetime, token: str, started: float
) -> list[Message]:
    """Build, hand over and send claimed rows over one connection; record how each ended.

    The answers not yet written (``answered``) go to the database with the next row's
    hand-over. When the database is away, nothing more is handed over; the answers are
    kept and written once it is back (until WRITE_BACK_FOR), and the rows not handed over
    are released (or, if it stays away, their claim runs out).
    """
    if not rows:
        return rows
    answered: list[Message] = []
    given_up: list[tuple[Message, Exception]] = []
    waiting = list(rows)  # claimed, not yet handed over
    connection = get_connection()
    try:
        while waiting and time.monotonic() - started < HAND_OVER_FOR:
            row = waiting[0]
            try:
                email = _prepare(row)
            except _DatabaseAway:
                log.warning("database away while building an email: the batch stops")
                break
            except Exception as exc:  # it cannot be built: building it again fails again
                row.error = describe(exc)
                given_up.append((row, exc))
                _give_up(row, exc)
                answered.append(waiting.pop(0))
                continue
            if email is None:  # suppressed or dropped: nothing to hand over
                answered.append(waiting.pop(0))
                continue
            try:
                handed = _record(answered, token, hand_over=row)
            except DATABASE_AWAY:
                log.warning("database away while handing an email over: the batch stops")
                _forget_connection()
                break
            answered = []
            waiting.pop(0)
            if not handed:
                continue  # its claim ran out and the sweep released it: not ours now
            row.status, row.attempts = Message.Status.SENDING, row.attempts + 1
            try:
                _send(row, email, connection)
            except Exception as exc:
                row.error = describe(exc)
                if may_have_gone(exc, connection):
                    # Sent whole, its answer lost: in doubt. It stays "sending", for the
                    # operator (reported by the sweep), rather than risk a second copy.
                    row.error = f"No answer after the whole message was sent: {row.error}"
                    answered.append(row)
                    _close(connection)
                    break
                if not is_temporary(exc) or row.attempts >= MAX_ATTEMPTS:
                    given_up.append((row, exc))
                    _give_up(row, exc, why="" if not is_temporary(exc) else _still_failing(row))
                else:
                    # The server answered with an error (or never answered), so nothing
                    # was accepted: releasing the claim is safe.
                    row.status = Message.Status.PENDING
                    row.next_attempt_at = now + backoff(row.attempts)
                answered.append(row)
                _close(connection)  # a failed send may leave it unusable: a new one next
                if stops_the_batch(exc):
                    break
                continue
            answered.append(row)
    finally:
        _close(connection)
    _write_back(answered, token, waiting, started)
    for row, exc in given_up:
        _tell_about(row, exc)
    for row in waiting:  # released (or left to their claim's end): due again as they were
        row.status, row.released = Message.Status.PENDING, True
    return rows


def _prepare(row: Message) -> EmailMultiAlternatives | None:
    """The email of a claimed row, built; None when it is not to be sent (mail to the
    address stopped, or no longer needed), with the row's status saying so."""
    if row.stopped:
        row.status = Message.Status.SUPPRESSED
        return None
    try:
        composed = compose.compose(row)
    except DATABASE_AWAY as exc:
        _forget_connection()
        raise _DatabaseAway from exc
    if composed is None:
        row.status = Message.Status.DROPPED
        return None
    row.subject, row.body_text = composed.subject, composed.text
    row.body_html, row.headers = composed.html, composed.headers
    return build_email(row, composed.images)


def _record(
    answered: list[Message], token: str, *, hand_over: Message | None = None, release=()
) -> bool:
    """Write the answers of ``answered`` and, in the same transaction, mark ``hand_over``
    "sending" (with the email as built) if it is still claimed under ``token`` and its
    claim has not run out, and put the rows ``release`` back to pending; return whether
    ``hand_over`` is ours to send. Every write names the claim: a row released and claimed
    again by another delivery is never written by this one."""
    handed = False
    with transaction.atomic():
        for row in answered:
            Message.objects.filter(pk=row.pk, claim=token).update(
                **{name: getattr(row, name) for name in FINISHED_FIELDS}
            )
        if hand_over is not None:
            handed = bool(
                Message.objects.filter(
                    pk=hand_over.pk,
                    status=Message.Status.CLAIMED,
                    claim=token,
                    claimed_at__gt=timezone.now() - CLAIM_LEASE,
                ).update(
                    status=Message.Status.SENDING,
                    attempts=F("attempts") + 1,
                    **{name: getattr(hand_over, name) for name in BUILT_FIELDS},
                )
            )
        if release:
            Message.objects.filter(
                pk__in=[row.pk for row in release], status=Message.Status.CLAIMED, claim=token
            ).update(status=Message.Status.PENDING)
    return handed


def _write_back(
    answered: list[Message], token: str, waiting: list[Message], started: float
) -> None:
    """Write the batch's last answers and release the rows not handed over, trying again
    while the database is away, until WRITE_BACK_FOR from the start of the delivery. A
    row whose answer cannot be written stays "sending" (the operator is told); a row not
    released is released by the sweep when its claim runs out."""
    pause = 0.25
    while answered or waiting:
        try:
            _record(answered, token, release=waiting)
            return
        except DATABASE_AWAY:
            _forget_connection()
            if time.monotonic() + pause - started > WRITE_BACK_FOR:
                log.error(
                    "database away: the answers of %d outbox row(s) (%s) could not be written",
                    len(answered),
                    ", ".join(str(row.pk) for row in answered),
                )
                return
            time.sleep(pause)
            pause = min(pause * 2, 5)


def _forget_connection() -> None:
    """Drop the database connection that failed, so that the next query opens a new one
    (outside a transaction; inside one, such as a test's, it is left to its owner)."""
    if not database.in_atomic_block:
        database.close()


# What delivery writes back to a row with its answer.
FINISHED_FIELDS = ["status", "next_attempt_at", "sent_at", "error", "provider_id"]
# What it writes when it hands a row over: the email as built.
BUILT_FIELDS = ["subject", "body_text", "body_html", "headers"]


def _close(connection) -> None:
    """Close the mail connection; a server that does not answer our QUIT (or has gone)
    must not stop the results of the batch from being written."""
    try:
        connection.close()
    except Exception:
        log.warning("closing the mail connection failed", exc_info=True)


def _send(row: Message, email: EmailMultiAlternatives, connection) -> None:
    """Send a row's email, handed over, through ``connection``; set how it ended."""
    email.connection = connection
    connection.open()  # kept open for the batch's next emails (a no-op once open)
    email.send()
    status = getattr(email, "anymail_status", None)
    if status is not None and status.status and status.status <= {"rejected", "invalid"}:
        row.status, row.error = Message.Status.FAILED, f"Rejected: {status.status}"
        return
    row.provider_id = (status.message_id or "") if status is not None else ""
    row.status, row.error, row.sent_at = Message.Status.SENT, "", timezone.now()


def _still_failing(row: Message) -> str:
    return f"still failing after {row.attempts} attempts"


def _give_up(row: Message, exc: Exception, why: str = "") -> None:
    """Mark the row failed with the reason."""
    refused = isinstance(exc, AnymailRecipientsRefused | smtplib.SMTPRecipientsRefused)
    error = f"Address rejected: {row.error}" if refused else row.error
    row.status, row.error = Message.Status.FAILED, f"{error} ({why})" if why else error


def _tell_about(row: Message, exc: Exception) -> None:
    """Tell the operator a row failed for good, unless the address itself was refused (a
    mailbox that does not exist is the recipient's news, not a fault)."""
    if isinstance(exc, AnymailRecipientsRefused | smtplib.SMTPRecipientsRefused):
        log.warning("Outbox row %s: %s", row.pk, row.error)
        return
    log.error("Outbox row %s (%s to %s) failed: %s", row.pk, row.kind, row.to, row.error)
    tell_operator(
        f"Email {row.pk} failed: {row.kind} to {row.to}",
        f"The outbox row {row.pk} ({row.kind} to {row.to}, game "
        f"{row.game_id or '-'}) was not sent and will not be retried.\n\n"
        f"Reason: {row.error}\n",
    )


def tell_operator(subject: str, body: str) -> None:
    """Mail the site's ADMINS directly, never through the outbox (whose delivery may be
    what is broken). A failure to do so is logged, never raised."""
    try:
        mail_admins(one_line(subject), body, fail_silently=False)
    except Exception:
        log.exception("Could not mail the operators: %s", subject)


def build_email(message: Message, images: dict[str, bytes] | None = None) -> EmailMultiAlternatives:
    """Return the Django email for an outbox row as built, with its tags and metadata,
    and ``images`` (PNG by Content-ID) inline beside the HTML."""
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
    if images:
        email.mixed_subtype = "related"  # the HTML shows them by cid:
        for content_id, data in images.items():
            image = MIMEImage(data, "png")
            image.add_header("Content-ID", f"<{content_id}>")
            image.add_header("Content-Disposition", "inline", filename="board.png")
            email.attach(image)
    # A provider that deduplicates on a key of ours (deploy/README.md) gets the row's
    # token, the same for every try of the row, in the header it reads.
    if settings.RAILMAIL_IDEMPOTENCY_HEADER:
        email.extra_headers[settings.RAILMAIL_IDEMPOTENCY_HEADER] = message.token
    # anymail passes these to the provider; other backends ignore them.
    email.tags = [message.kind]
    email.metadata = {"outbox_id": str(message.pk), "game": str(message.game_id or "")}
    # The provider must not rewrite links through its redirector: seat and sign-in links
    # are secrets, and an opened email is the player's business.
    email.track_clicks = False
    email.track_opens = False
    return email


def with_what_emails_read(rows: QuerySet[Message]) -> list[Message]:
    """``rows`` in order, with what building their emails reads (their games, seats,
    accounts), in three queries for any number."""
    rows = list(
        rows.select_related("game__created_by", "seat__user")
        .prefetch_related("game__seats")
        .order_by("pk")
    )
    for row in rows:
        if row.seat is not None and row.seat.game_id == row.game_id:
            # The seat's game is the message's: one object for both, not a query for
            # each row when the email reads the seat's language (games.words.languages).
            row.seat.game = row.game
    return rows


def due_rows(now: datetime) -> list[int]:
    """Pending rows whose time has come, the longest waiting first (at most 500).

    The minute's sweep hands them to delivery: a row written for later (a your-turn email
    waits its grace period) gets no task until then, and one whose task the broker lost
    (it may drop messages when it restarts) would wait for ever. A row whose task is
    queued already may be among them: its claim makes the second task a no-op.
    """
    # In the order of the partial index of pending rows (no sort).
    due = Message.objects.filter(status=Message.Status.PENDING, next_attempt_at__lte=now)
    return list(due.order_by("next_attempt_at").values_list("pk", flat=True)[:500])


def release_expired(now: datetime) -> int:
    """Put back to pending the rows whose claim has run out without their being handed to
    the mail server (their worker died, or the database was away); return how many.

    Such a row never reached the server, so sending it is safe; its claim outlasts the
    delivery task's hard time limit, so the delivery that claimed it is dead or will no
    longer hand it over (its hand-over checks the claim's age and token).
    """
    return Message.objects.filter(
        status=Message.Status.CLAIMED, claimed_at__lte=now - CLAIM_LEASE
    ).update(status=Message.Status.PENDING, claim="")


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
    unreported = Q(stuck_reported_at__isnull=True)
    # One query in the usual minute, when no row is newly stuck: both counts at once.
    counts = stuck.aggregate(stuck=Count("pk"), new=Count("pk", filter=unreported))
    new = list(stuck.filter(unreported).order_by("pk")[:100]) if counts["new"] else []
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
                "A worker died (or was killed at the task's time limit, or lost its "
                "database for good) after handing these emails to the mail server and "
                "before recording its answer. They may or may not have reached the server: "
                "check the provider's or the mail server's log for their Message-ID "
                '(below) before using the admin\'s "Send again", which may '
                "send a duplicate. (Emails it had claimed but not handed over are sent "
                "again by themselves.)\n\n" + "\n".join(lines) + "\n",
            )
    return counts["stuck"]


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
