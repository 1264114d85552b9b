from datetime import timedelta

import pytest
from anymail.exceptions import AnymailAPIError, AnymailRecipientsRefused
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from notifications import emails, outbox, tasks
from notifications.models import Message

pytestmark = pytest.mark.django_db


def pending_message(address="ada@example.org") -> Message:
    # Written without the commit hook firing, as if the task had not run yet.
    return emails.login_link(address, "https://railmail.example.org/l/token/")


class FailingBackend:
    """A backend that fails the way a provider does, then (optionally) recovers."""

    failures: list = []

    def __init__(self, *args, **kwargs):
        pass

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
    report = tasks.sweep_outbox()
    assert report == {"requeued": 0, "stuck": 1}
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
    assert "1 email(s) queued again." in response.content.decode()
    message.refresh_from_db()
    assert message.status == Message.Status.SENT
    assert len(mail.outbox) == 1


def test_the_sweep_requeues_a_row_whose_task_was_lost():
    message = pending_message()
    assert tasks.sweep_outbox() == {"requeued": 0, "stuck": 0}  # too recent: may be queued
    later = timezone.now() + outbox.LOST_AFTER + timedelta(seconds=1)
    assert tasks.sweep_outbox(later.isoformat()) == {"requeued": 1, "stuck": 0}
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
    # The retry goes through.
    assert outbox.deliver(message.pk).status == Message.Status.SENT
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
    assert tasks.sweep_outbox((timezone.now() + timedelta(days=1)).isoformat())["requeued"] == 0


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
