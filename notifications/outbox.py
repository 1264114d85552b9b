"""Delivering outbox rows: claim, send once through Django's email API, record the result.

Pending -> claimed -> sending -> sent (or failed, suppressed, dropped). Both the claim and
the hand-over are conditional UPDATEs, so only one task ever has a row and only the row on
the wire is ever "sending" (may have gone out). A claim never handed over runs out
(CLAIM_LEASE) and the sweep releases it, so a dead worker strands nothing unsent.
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

from helpers import clock_source
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
# How long one delivery task may run (wall time); the hard limit kills the worker and
# leaves the row on the wire "sending".
SEND_TIME_LIMIT = settings.RAILMAIL_SEND_TIME_LIMIT
SEND_SOFT_TIME_LIMIT = SEND_TIME_LIMIT - SEND_TIME_LIMIT // 5
# Within a delivery: no hand-over after HAND_OVER_FOR; answers the database could not
# take are retried until WRITE_BACK_FOR, before the soft limit.
HAND_OVER_FOR = SEND_TIME_LIMIT * 2 // 5
WRITE_BACK_FOR = SEND_SOFT_TIME_LIMIT - SEND_TIME_LIMIT // 10
# A claim's life: it outlasts the task's hard limit, so a slow live worker and a new one
# never both send a row. Compared through ``clock_source.lasting``, as claims are stamped
# by the games' clock, which a test may run faster.
CLAIM_LEASE = timedelta(seconds=SEND_TIME_LIMIT + SEND_TIME_LIMIT // 5)
# A row "sending" this long lost its worker between hand-over and answer: tell the operator.
STUCK_AFTER = timedelta(seconds=SEND_TIME_LIMIT + SEND_TIME_LIMIT * 2 // 5)
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
    """Whether a failed send may succeed later (SMTP 4xx, HTTP 429/5xx, no answer).

    A message that cannot be built is permanent: trying again builds the same message.
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
    """Whether the mail server itself is unwell (no answer, connection refused or cut), so
    the batch's other rows are released at once rather than each waiting its timeouts."""
    if isinstance(exc, SoftTimeLimitExceeded | smtplib.SMTPServerDisconnected):
        return True
    if isinstance(exc, smtplib.SMTPException):
        return False  # an answer (SMTPException is an OSError: tested first)
    if isinstance(exc, AnymailAPIError):
        return exc.status_code is None  # no HTTP answer at all
    return isinstance(exc, OSError)  # refused, reset, unreachable, timed out


def may_have_gone(exc: BaseException, connection) -> bool:
    """Whether the message went out whole with no answer back; never when the provider
    deduplicates on our key (RAILMAIL_IDEMPOTENCY_HEADER), as a retry is safe there."""
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
    """Send outbox row ``message_id`` if pending and due, with up to ``along`` others due
    (one claim, one connection); return the row, or None if it was not ours.

    Raises TemporaryFailure to retry this row after ``retry_in``; rows taken along are
    retried by the sweep. Only a row that may_have_gone is ever left "sending".
    """
    now = now or clock_source.now()
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
    """Claim the row and up to ``along`` others by one conditional UPDATE, so of two
    workers only one ever gets a row."""
    wanted = Q(pk=message_id)
    if along:
        due = Message.objects.filter(
            status=Message.Status.PENDING, next_attempt_at__lte=now
        ).exclude(pk=message_id)
        wanted |= Q(pk__in=due.order_by("next_attempt_at").values("pk")[:along])
    # The claim's life runs on the real clock, whatever moment the task was queued for.
    claimed_at = clock_source.now()
    early = clock_source.lasting(EARLY)
    claimed = Message.objects.filter(
        wanted, status=Message.Status.PENDING, next_attempt_at__lte=now + early
    ).update(status=Message.Status.CLAIMED, claimed_at=claimed_at, claim=token)
    if not claimed:
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

    Answers are written with the next row's hand-over. While the database is away nothing
    more is handed over; answers are kept for _write_back and the rest released.
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
            except SoftTimeLimitExceeded:
                # Out of time, not a broken email: released for a later delivery.
                log.warning("the delivery's time ran out while building an email: released")
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
                    # In doubt: it stays "sending" for the operator rather than risk a copy.
                    row.error = f"No answer after the whole message was sent: {row.error}"
                    answered.append(row)
                    _close(connection)
                    break
                if not is_temporary(exc) or row.attempts >= MAX_ATTEMPTS:
                    given_up.append((row, exc))
                    _give_up(row, exc, why="" if not is_temporary(exc) else _still_failing(row))
                else:
                    # Nothing was accepted, so releasing the claim is safe.
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
    """In one transaction, write ``answered``, mark ``hand_over`` "sending" if its claim is
    still ours and alive, and release ``release``; return whether ``hand_over`` is ours.
    Every write names the claim, so a row reclaimed by another delivery is never touched."""
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
                    claimed_at__gt=clock_source.now() - clock_source.lasting(CLAIM_LEASE),
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
    """Write the last answers and release the rest, retrying while the database is away
    until WRITE_BACK_FOR; what stays unwritten the sweep reports or releases."""
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
    """Drop the failed database connection so the next query opens a new one (not inside
    a transaction, such as a test's: that belongs to its owner)."""
    if not database.in_atomic_block:
        database.close()


# What delivery writes back to a row with its answer.
FINISHED_FIELDS = ["status", "next_attempt_at", "sent_at", "error", "provider_id"]
# What it writes when it hands a row over: the email as built.
BUILT_FIELDS = ["subject", "body_text", "body_html", "headers"]


def _close(connection) -> None:
    """Close the mail connection; a server that ignores QUIT must not stop the batch's
    results from being written."""
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
    row.status, row.error, row.sent_at = Message.Status.SENT, "", clock_source.now()


def _still_failing(row: Message) -> str:
    return f"still failing after {row.attempts} attempts"


def _give_up(row: Message, exc: Exception, why: str = "") -> None:
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
    """The Django email for an outbox row, ``images`` (PNG by Content-ID) inline."""
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
    # The same for every try, so a provider that deduplicates on it sends one copy.
    if settings.RAILMAIL_IDEMPOTENCY_HEADER:
        email.extra_headers[settings.RAILMAIL_IDEMPOTENCY_HEADER] = message.token
    # anymail passes these to the provider; other backends ignore them.
    email.tags = [message.kind]
    email.metadata = {"outbox_id": str(message.pk), "game": str(message.game_id or "")}
    # Seat and sign-in links are secrets: no provider redirector, no open tracking.
    email.track_clicks = False
    email.track_opens = False
    return email


def with_what_emails_read(rows: QuerySet[Message]) -> list[Message]:
    """``rows`` in order, with what building their emails reads, in three queries."""
    rows = list(
        rows.select_related("game__created_by", "seat__user")
        .prefetch_related("game__seats")
        .order_by("pk")
    )
    for row in rows:
        if row.seat is not None and row.seat.game_id == row.game_id:
            # One object for both, not a query per row for the seat's language.
            row.seat.game = row.game
    return rows


def due_rows(until: datetime) -> list[tuple[int, datetime]]:
    """Pending rows due by ``until``, soonest first, each with when it is due: rows written
    for later and rows whose task the broker lost get queued by the sweep; a duplicate
    task is a no-op through the claim."""
    due = Message.objects.filter(status=Message.Status.PENDING, next_attempt_at__lte=until)
    return list(due.order_by("next_attempt_at").values_list("pk", "next_attempt_at")[:500])


def release_expired(now: datetime) -> int:
    """Put back to pending the rows whose claim ran out before hand-over; return how many.
    Safe: they never reached the server, and their delivery can no longer hand them over."""
    return Message.objects.filter(
        status=Message.Status.CLAIMED, claimed_at__lte=now - clock_source.lasting(CLAIM_LEASE)
    ).update(status=Message.Status.PENDING, claim="")


def report_stuck(now: datetime) -> int:
    """Tell the operator, once, of each row left "sending"; return how many are stuck.
    Never resent automatically: a second copy is worse than a late one."""
    stuck = Message.objects.filter(
        status=Message.Status.SENDING, claimed_at__lte=now - clock_source.lasting(STUCK_AFTER)
    )
    unreported = Q(stuck_reported_at__isnull=True)
    counts = stuck.aggregate(stuck=Count("pk"), new=Count("pk", filter=unreported))
    new = list(stuck.filter(unreported).order_by("pk")[:100]) if counts["new"] else []
    if new:
        # Claimed first, so two sweeps at once report each row once.
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
        next_attempt_at=clock_source.now(),
        claimed_at=None,
        stuck_reported_at=None,
    )
    return ids
