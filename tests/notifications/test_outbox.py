import smtplib
from datetime import timedelta

import pytest
from anymail.exceptions import AnymailAPIError, AnymailRecipientsRefused
from django.core import mail
from django.core.mail.backends.base import BaseEmailBackend
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from notifications import emails, outbox, tasks
from notifications.models import Message
from tests.factories import GameFactory, MessageFactory

pytestmark = pytest.mark.django_db


def pending_message(address="ada@example.org") -> Message:
    # Written without the commit hook firing, as if the task had not run yet.
    return emails.login_link(address, "https://railmail.example.org/l/token/")


class FailingBackend(BaseEmailBackend):
    """A backend that fails the way a provider does, then (optionally) recovers."""

    failures: list = []

    def send_messages(self, messages):
        if FailingBackend.failures:
            raise FailingBackend.failures.pop(0)
        mail.outbox.extend(messages)
        return len(messages)


@pytest.fixture
def failing(settings):
    settings.EMAIL_BACKEND = f"{__name__}.FailingBackend"
    FailingBackend.failures = []
    return FailingBackend.failures


def test_running_the_task_twice_sends_once():
    message = pending_message()
    assert tasks.deliver.delay(message.pk).get() == "sent"
    assert tasks.deliver.delay(message.pk).get() == "not pending"
    assert len(mail.outbox) == 1


def test_a_worker_that_dies_mid_send_leaves_the_row_for_an_operator():
    message = pending_message()
    # The claim happened, then the worker died before it could record the result.
    Message.objects.filter(pk=message.pk).update(
        status=Message.Status.SENDING, claimed_at=timezone.now() - timedelta(hours=1)
    )
    assert tasks.deliver.delay(message.pk).get() == "not pending"
    later = timezone.now() + outbox.STUCK_AFTER
    assert tasks.sweep_outbox(later.isoformat()) == {"released": 0, "due": 0, "stuck": 1}
    assert mail.outbox == []
    message.refresh_from_db()
    assert message.status == Message.Status.SENDING


def test_an_operator_can_send_a_stuck_row_again(staff_client, django_capture_on_commit_callbacks):
    message = pending_message()
    Message.objects.filter(pk=message.pk).update(status=Message.Status.SENDING)
    with django_capture_on_commit_callbacks(execute=True):
        response = staff_client.post(
            reverse("admin:notifications_message_changelist"),
            {"action": "send_again", "_selected_action": [message.pk]},
            follow=True,
        )
    assert "1 email queued again." in response.content.decode()
    message.refresh_from_db()
    assert message.status == Message.Status.SENT
    assert len(mail.outbox) == 1


def test_the_rows_due_are_the_pending_ones_whose_time_has_come_longest_waiting_first():
    first, second = pending_message(), pending_message("bo@example.org")
    later = pending_message("cy@example.org")
    now = timezone.now()
    Message.objects.filter(pk=first.pk).update(next_attempt_at=now - timedelta(minutes=3))
    Message.objects.filter(pk=second.pk).update(next_attempt_at=now - timedelta(minutes=1))
    Message.objects.filter(pk=later.pk).update(next_attempt_at=now + timedelta(minutes=1))
    assert [pk for pk, _due in outbox.due_rows(now)] == [first.pk, second.pk]
    Message.objects.filter(pk=first.pk).update(status=Message.Status.SENT)
    assert outbox.due_rows(now + timedelta(minutes=2)) == [
        (second.pk, now - timedelta(minutes=1)),
        (later.pk, now + timedelta(minutes=1)),
    ]


def test_the_sweep_sends_the_rows_that_are_due(settings):
    # Without a broker (tasks run in-process), nothing waits for a row's time: the sweep
    # sends every row that is due, such as a your-turn email after its grace period.
    assert settings.CELERY_TASK_ALWAYS_EAGER
    message = pending_message()
    Message.objects.filter(pk=message.pk).update(
        next_attempt_at=timezone.now() + timedelta(minutes=2)
    )
    assert tasks.sweep_outbox() == {"released": 0, "due": 0, "stuck": 0}  # not due yet
    later = timezone.now() + timedelta(minutes=2, seconds=1)
    assert tasks.sweep_outbox(later.isoformat()) == {"released": 0, "due": 1, "stuck": 0}
    message.refresh_from_db()
    assert message.status == Message.Status.SENT
    assert len(mail.outbox) == 1


def test_a_provider_error_leaves_the_row_pending_with_backoff(failing):
    failing.append(AnymailAPIError("provider is down"))
    message = pending_message()
    before = timezone.now()
    with pytest.raises(outbox.TemporaryFailure):
        outbox.deliver(message.pk)
    message.refresh_from_db()
    assert message.status == Message.Status.PENDING
    assert message.attempts == 1
    assert message.next_attempt_at >= before + timedelta(minutes=1)
    assert "provider is down" in message.error
    assert outbox.deliver(message.pk) is None  # not before its next attempt
    # The retry goes through.
    assert outbox.deliver(message.pk, message.next_attempt_at).status == Message.Status.SENT
    assert len(mail.outbox) == 1


def test_a_network_error_is_retried(failing):
    failing.append(ConnectionResetError("reset by peer"))
    message = pending_message()
    with pytest.raises(outbox.TemporaryFailure):
        outbox.deliver(message.pk)
    assert Message.objects.get(pk=message.pk).status == Message.Status.PENDING


def test_a_rejected_address_is_never_retried(failing):
    failing.append(AnymailRecipientsRefused("no such mailbox"))
    message = pending_message()
    assert outbox.deliver(message.pk).status == Message.Status.FAILED
    assert "rejected" in Message.objects.get(pk=message.pk).error
    assert outbox.deliver(message.pk) is None
    assert tasks.sweep_outbox((timezone.now() + timedelta(days=1)).isoformat())["due"] == 0


def test_a_row_that_keeps_failing_is_given_up(failing):
    message = pending_message()
    Message.objects.filter(pk=message.pk).update(attempts=outbox.MAX_ATTEMPTS - 1)
    failing.append(AnymailAPIError("still down"))
    assert outbox.deliver(message.pk).status == Message.Status.FAILED


def test_the_eager_task_leaves_a_failure_to_the_sweep(failing):
    failing.append(AnymailAPIError("down"))
    message = pending_message()
    assert tasks.deliver.delay(message.pk).get() == "retry later"
    assert Message.objects.get(pk=message.pk).status == Message.Status.PENDING


def test_backoff_doubles_up_to_four_hours():
    assert [outbox.backoff(n).total_seconds() // 60 for n in (1, 2, 3, 9, 20)] == [
        1,
        2,
        4,
        240,
        240,
    ]


# Issue 13: nothing is left "sending" by an exception; the operator hears of failures.


@pytest.fixture
def admins(settings):
    settings.ADMINS = [("Ops", "ops@example.org")]
    return "ops@example.org"


def to_operator() -> list:
    return [m for m in mail.outbox if m.to == ["ops@example.org"]]


def test_a_message_that_cannot_be_built_fails_with_the_reason_and_the_operator_is_told(admins):
    message = pending_message()
    # Facts the email cannot be built from (a row written by an older release, say):
    # building it again would fail again.
    Message.objects.filter(pk=message.pk).update(facts={})
    result = outbox.deliver(message.pk)
    assert result.status == Message.Status.FAILED
    assert "KeyError" in result.error
    assert [m.subject for m in to_operator()] == [
        f"[Django] Email {message.pk} failed: login_link to ada@example.org"
    ]
    assert "KeyError" in to_operator()[0].body
    assert outbox.deliver(message.pk) is None  # not retried


def test_a_line_break_in_a_game_title_or_name_never_reaches_a_subject():
    from games.models import Game, Seat
    from tests.factories import GameFactory

    game = GameFactory()
    Game.objects.filter(pk=game.pk).update(title="Friday\r\nBcc: all@example.org")
    Seat.objects.filter(game=game).update(name="Eve\nBcc: x@example.org")
    game.refresh_from_db()
    seat = game.seats.first()
    row = outbox.deliver(emails.invitation(seat, reminder=True).pk)
    assert row.status == Message.Status.SENT
    assert "\n" not in row.subject and "\r" not in row.subject
    assert row.subject.endswith("Friday Bcc: all@example.org")
    assert mail.outbox[-1].subject == row.subject


def test_a_row_stuck_in_sending_is_reported_to_the_operator_once(admins):
    message = pending_message()
    claimed = timezone.now() - outbox.STUCK_AFTER - timedelta(seconds=1)
    Message.objects.filter(pk=message.pk).update(
        status=Message.Status.SENDING, claimed_at=claimed, attempts=1
    )
    assert tasks.sweep_outbox() == {"released": 0, "due": 0, "stuck": 1}
    [report] = to_operator()
    assert report.subject == "[Django] 1 email(s) stuck while being sent"
    assert f"row {message.pk}: login_link to ada@example.org" in report.body
    assert "may send a duplicate" in report.body
    # Told once: the next sweeps count it but do not mail again.
    assert tasks.sweep_outbox() == {"released": 0, "due": 0, "stuck": 1}
    assert len(to_operator()) == 1
    message.refresh_from_db()
    assert message.status == Message.Status.SENDING  # never resent blindly


def test_a_row_not_yet_past_the_hard_time_limit_is_not_reported(admins):
    message = pending_message()
    Message.objects.filter(pk=message.pk).update(
        status=Message.Status.SENDING, claimed_at=timezone.now()
    )
    assert tasks.sweep_outbox() == {"released": 0, "due": 0, "stuck": 0}
    assert to_operator() == []
    assert outbox.STUCK_AFTER.total_seconds() > tasks.deliver.time_limit
    assert tasks.deliver.soft_time_limit < tasks.deliver.time_limit


def test_the_admin_says_plainly_that_sending_again_may_duplicate(
    staff_client, django_capture_on_commit_callbacks
):
    message = pending_message()
    Message.objects.filter(pk=message.pk).update(status=Message.Status.SENDING)
    with django_capture_on_commit_callbacks(execute=True):
        response = staff_client.post(
            reverse("admin:notifications_message_changelist"),
            {"action": "send_again", "_selected_action": [message.pk]},
            follow=True,
        )
    page = response.content.decode()
    assert "may already have delivered them" in page and "twice" in page
    assert (
        "may arrive twice"
        in staff_client.get(reverse("admin:notifications_message_changelist")).content.decode()
    )


@pytest.mark.parametrize(
    ("error", "temporary"),
    [
        (smtplib.SMTPDataError(554, b"rejected"), False),
        (smtplib.SMTPDataError(451, b"later"), True),
        (smtplib.SMTPSenderRefused(550, b"no", "a@b"), False),
        (smtplib.SMTPRecipientsRefused({"a@b": (550, b"no")}), False),
        (smtplib.SMTPRecipientsRefused({"a@b": (452, b"full")}), True),
        (smtplib.SMTPServerDisconnected("gone"), True),
        (TimeoutError("timed out"), True),
        (ConnectionRefusedError(111, "refused"), True),
        (AnymailAPIError("busy", status_code=429), True),
        (AnymailAPIError("down", status_code=502), True),
        (AnymailAPIError("bad", status_code=422), False),
        (AnymailAPIError("no answer"), True),
        (AnymailRecipientsRefused("no"), False),
        (ValueError("cannot build"), False),
    ],
)
def test_permanent_and_temporary_failures_are_told_apart(error, temporary):
    assert outbox.is_temporary(error) is temporary


class QuitTimesOutBackend(BaseEmailBackend):
    """Sends, then hangs up badly: its close fails as a QUIT to a silent server does."""

    def send_messages(self, messages):
        mail.outbox.extend(messages)
        return len(messages)

    def close(self):
        raise TimeoutError("timed out waiting for the answer to QUIT")


def test_a_connection_that_fails_to_close_still_has_its_results_written(settings):
    settings.EMAIL_BACKEND = f"{__name__}.QuitTimesOutBackend"
    message = pending_message()
    assert outbox.deliver(message.pk).status == Message.Status.SENT
    message.refresh_from_db()
    assert message.status == Message.Status.SENT and len(mail.outbox) == 1


def test_a_batch_reads_no_game_again_for_each_row():
    """The rows come with their games, seats and accounts; building each email (in its
    reader's language, the seat's) asks the database for none of them again."""
    for game in GameFactory.create_batch(3):
        for seat in game.seats.all():
            emails.invitation(seat, reminder=True)
    rows = Message.objects.filter(status=Message.Status.PENDING)
    rows.update(next_attempt_at=timezone.now())
    ids = list(rows.values_list("pk", flat=True))
    assert len(ids) >= 9
    with CaptureQueriesContext(connection) as queries:
        outbox.deliver(ids[0], along=len(ids))
    assert not Message.objects.filter(pk__in=ids).exclude(status=Message.Status.SENT).exists()
    reads = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("SELECT")]
    assert not [sql for sql in reads if sql.split(" FROM ")[1].startswith('"games_game"')]


# Issue 33: only what may have gone out is in doubt.


class WatchingBackend(BaseEmailBackend):
    """Records, as each email is handed to it, the status of every row in the outbox; a
    test may also run ``during`` then (as a slow send would let time pass)."""

    seen: list = []
    during = None

    def send_messages(self, messages):
        WatchingBackend.seen.append(dict(Message.objects.values_list("to", "status")))
        if WatchingBackend.during is not None:
            WatchingBackend.during()
        mail.outbox.extend(messages)
        return len(messages)


@pytest.fixture
def watching(settings):
    settings.EMAIL_BACKEND = f"{__name__}.WatchingBackend"
    WatchingBackend.seen, WatchingBackend.during = [], None
    return WatchingBackend


def test_only_the_row_on_the_wire_is_in_doubt(watching):
    rows = MessageFactory.create_batch(4)
    outbox.deliver(rows[0].pk, along=outbox.BATCH - 1)
    # As each email went to the server: the ones before it sent, it alone "sending", the
    # ones after it claimed (never handed over, so never in doubt).
    expected = [["sent"] * n + ["sending"] + ["claimed"] * (3 - n) for n in range(4)]
    assert [[seen[row.to] for row in rows] for seen in watching.seen] == expected
    assert [Message.objects.get(pk=row.pk).status for row in rows] == ["sent"] * 4
    assert [Message.objects.get(pk=row.pk).attempts for row in rows] == [1] * 4


def test_a_claim_that_runs_out_is_released_by_the_sweep_and_sent():
    [row] = MessageFactory.create_batch(1)
    claimed = timezone.now()
    # A worker claimed it and died before handing it over.
    Message.objects.filter(pk=row.pk).update(
        status=Message.Status.CLAIMED, claimed_at=claimed, claim="dead-worker"
    )
    assert tasks.deliver.delay(row.pk).get() == "not pending"  # a live claim is respected
    almost = claimed + outbox.CLAIM_LEASE - timedelta(seconds=1)
    assert tasks.sweep_outbox(almost.isoformat()) == {"released": 0, "due": 0, "stuck": 0}
    assert mail.outbox == []
    then = claimed + outbox.CLAIM_LEASE
    assert tasks.sweep_outbox(then.isoformat()) == {"released": 1, "due": 1, "stuck": 0}
    row.refresh_from_db()
    assert row.status == Message.Status.SENT and row.attempts == 1
    assert len(mail.outbox) == 1


def test_a_delivery_whose_claim_has_run_out_hands_nothing_more_over(watching):
    first, second = MessageFactory.create_batch(2)

    def slow():  # the first send takes longer than the claim's life
        Message.objects.filter(status=Message.Status.CLAIMED).update(
            claimed_at=timezone.now() - outbox.CLAIM_LEASE
        )

    watching.during = slow
    outbox.deliver(first.pk, along=1)
    assert [m.to for m in mail.outbox] == [[first.to]]
    second.refresh_from_db()
    # Not handed over: the sweep releases it to another delivery, which sends it once.
    assert second.status == Message.Status.CLAIMED and second.attempts == 0
    watching.during = None
    assert tasks.sweep_outbox()["released"] == 1
    second.refresh_from_db()
    assert second.status == Message.Status.SENT and second.attempts == 1
    assert [m.to for m in mail.outbox] == [[first.to], [second.to]]


def test_a_claim_outlasts_the_task_and_a_released_row_goes_within_five_minutes():
    # The delivery that claimed a row is dead (hard time limit) before its claim runs out:
    # a slow live worker and a new one never both have it.
    assert outbox.CLAIM_LEASE.total_seconds() > tasks.deliver.time_limit
    # It stops handing over, then stops writing, before the soft limit.
    assert outbox.HAND_OVER_FOR < outbox.WRITE_BACK_FOR < tasks.deliver.soft_time_limit
    # A row it never handed over is due again at the first sweep after its claim ran out
    # (the sweep runs every minute), and sent at once.
    assert outbox.CLAIM_LEASE + timedelta(minutes=1) <= timedelta(minutes=5)
    # A row on the wire is reported only once its delivery must be dead.
    assert outbox.STUCK_AFTER.total_seconds() > tasks.deliver.time_limit
