"""The outbox against real mail servers of the tests' own (tests/mail_servers.py): an SMTP
server that answers 4xx, 5xx or nothing, and a provider's HTTP API that answers 429, 5xx
or 4xx. Permanent failures end the row "failed"; temporary ones put it back to pending;
nothing is left "sending" (issue 13)."""

import email
import json
import time
from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from notifications import compose, emails, outbox
from notifications.models import Message
from tests.factories import MessageFactory
from tests.mail_servers import (
    accepting_silently,
    provider_api,
    recording_api,
    silent_server,
    smtp_server,
)
from tests.signing_clock import move_signing_clock

# A mail server is a real component: these run in the PostgreSQL pass.
pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def pending_message(address="ada@example.org") -> Message:
    return emails.login_link(address, "https://railmail.example.org/l/token/")


@pytest.fixture
def smtp(settings):
    """Send through Django's SMTP backend to the port the test gives."""

    def use(port: int) -> None:
        settings.EMAIL_BACKEND = "notifications.smtp.EmailBackend"
        settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
        settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
        settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
        settings.EMAIL_TIMEOUT = 1

    return use


def status_of(message: Message) -> str:
    message.refresh_from_db()
    return message.status


def test_a_delivery_takes_along_the_rows_due_over_one_connection(smtp):
    with smtp_server() as (port, server):
        smtp(port)
        rows = [pending_message(f"p{n}@example.org") for n in range(5)]
        later = pending_message("later@example.org")
        Message.objects.filter(pk=later.pk).update(
            next_attempt_at=later.next_attempt_at + timedelta(minutes=5)
        )
        assert outbox.deliver(rows[2].pk, along=outbox.BATCH - 1).status == Message.Status.SENT
        # The others due went with it; the one not due yet stays.
        assert [status_of(row) for row in rows] == [Message.Status.SENT] * 5
        assert status_of(later) == Message.Status.PENDING
        for row in rows:
            assert outbox.deliver(row.pk) is None  # each sent once
    assert len(server.received) == 5
    assert server.sessions == 1


def test_a_row_that_fails_in_a_batch_leaves_the_others_sent(smtp):
    with smtp_server() as (port, server):
        smtp(port)
        rows = [pending_message(f"p{n}@example.org") for n in range(3)]
        # This address's mailbox is over quota (a 4xx for it alone).
        Message.objects.filter(pk=rows[1].pk).update(to="full@example.org")
        server.rcpt_answers = {"full@example.org": "452 4.2.2 Mailbox full"}
        outbox.deliver(rows[0].pk, along=2)
        assert [status_of(row) for row in rows] == ["sent", "pending", "sent"]
    assert len(server.received) == 2


def test_an_accepting_server_gets_the_email(smtp):
    with smtp_server() as (port, server):
        smtp(port)
        message = pending_message()
        assert outbox.deliver(message.pk).status == Message.Status.SENT
    assert len(server.received) == 1 and "Sign in to" in server.received[0]


@pytest.mark.parametrize(
    "answers",
    [
        {"data": "554 5.7.1 Message rejected as spam"},
        {"mail_from": "550 5.7.1 Sender not allowed"},
    ],
)
def test_a_5xx_answer_fails_the_row_at_once(smtp, settings, answers):
    settings.ADMINS = [("Ops", "ops@example.org")]
    with smtp_server(**answers) as (port, server):
        smtp(port)
        message = pending_message()
        result = outbox.deliver(message.pk)
    assert result.status == Message.Status.FAILED and result.attempts == 1
    assert answers.popitem()[1].split()[0] in result.error
    assert server.received == []


@pytest.mark.parametrize(
    "answers",
    [
        {"data": "451 4.3.0 Try again later"},
        {"mail_from": "421 4.7.0 Too many connections"},
    ],
)
def test_a_4xx_answer_is_retried_later(smtp, answers):
    with smtp_server(**answers) as (port, _server):
        smtp(port)
        message = pending_message()
        with pytest.raises(outbox.TemporaryFailure):
            outbox.deliver(message.pk)
    assert status_of(message) == Message.Status.PENDING


def test_a_server_that_never_answers_times_out_and_is_retried(smtp):
    with silent_server() as port:
        smtp(port)
        message = pending_message()
        started = time.monotonic()
        with pytest.raises(outbox.TemporaryFailure):
            outbox.deliver(message.pk)
        # EMAIL_TIMEOUT (1 s here) bounds the wait for the greeting.
        assert time.monotonic() - started < 10
    assert status_of(message) == Message.Status.PENDING
    assert "timed out" in message.error


def test_a_server_that_is_not_there_is_retried(smtp):
    from tests.faults import closed_port

    smtp(closed_port())
    message = pending_message()
    with pytest.raises(outbox.TemporaryFailure):
        outbox.deliver(message.pk)
    assert status_of(message) == Message.Status.PENDING


@pytest.fixture
def postmark(settings):
    def use(url: str) -> None:
        settings.EMAIL_BACKEND = "anymail.backends.postmark.EmailBackend"
        settings.ANYMAIL = {"POSTMARK_SERVER_TOKEN": "test-token", "POSTMARK_API_URL": url}

    return use


@pytest.mark.parametrize("status", [429, 500, 503])
def test_a_provider_that_is_busy_or_failing_is_retried(postmark, status):
    with provider_api(status, {"ErrorCode": 100, "Message": "Try later"}) as url:
        postmark(url)
        message = pending_message()
        with pytest.raises(outbox.TemporaryFailure):
            outbox.deliver(message.pk)
    assert status_of(message) == Message.Status.PENDING
    assert str(status) in message.error


@pytest.mark.parametrize("status", [401, 422])
def test_a_provider_that_refuses_the_request_fails_the_row(postmark, settings, status):
    settings.ADMINS = [("Ops", "ops@example.org")]
    with provider_api(status, {"ErrorCode": 300, "Message": "Invalid email request"}) as url:
        postmark(url)
        message = pending_message()
        result = outbox.deliver(message.pk)
    assert result.status == Message.Status.FAILED
    assert str(status) in result.error


def test_a_provider_that_accepts_records_its_message_id(postmark):
    answer = {"ErrorCode": 0, "Message": "OK", "MessageID": "abc-123", "To": "ada@example.org"}
    with provider_api(200, answer) as url:
        postmark(url)
        message = pending_message()
        result = outbox.deliver(message.pk)
    assert result.status == Message.Status.SENT and result.provider_id == "abc-123"
    assert mail.outbox == []  # went to the provider, not to the test outbox


# Issue 33: a silent server costs seconds; a retried row keeps its Message-ID and key.


def test_a_silent_server_costs_one_timeout_and_the_batch_releases_the_rest(smtp, settings):
    # A batch of 20 to a server that takes the connection and never greets gives up once,
    # after EMAIL_TIMEOUT, not once per email: at most 10 s by default (not 200 s), here
    # at 1 s, the same code at a tenth of the wait.
    assert settings.EMAIL_TIMEOUT <= 10
    with accepting_silently() as (port, connections):
        smtp(port)
        settings.EMAIL_TIMEOUT = 1
        rows = MessageFactory.create_batch(20)
        started = time.monotonic()
        with pytest.raises(outbox.TemporaryFailure):
            outbox.deliver(rows[0].pk, along=outbox.BATCH - 1)
        took = time.monotonic() - started
    assert 1 <= took < 10  # once per email would be 20 s
    assert len(connections) == 1
    first = Message.objects.get(pk=rows[0].pk)
    assert first.status == Message.Status.PENDING and first.attempts == 1
    assert "timed out" in first.error and first.next_attempt_at > rows[0].next_attempt_at
    # The others were never handed over: pending again as they were, due at once, with
    # no attempt counted.
    rest = Message.objects.filter(pk__in=[row.pk for row in rows[1:]])
    assert {(m.status, m.attempts, m.error) for m in rest} == {(Message.Status.PENDING, 0, "")}
    assert {m.pk: m.next_attempt_at for m in rest} == {r.pk: r.next_attempt_at for r in rows[1:]}
    assert {pk for pk, _due in outbox.due_rows(timezone.now())} == {row.pk for row in rows[1:]}


def test_a_silent_provider_api_costs_one_timeout_and_the_request_it_took_is_in_doubt(settings):
    with accepting_silently() as (port, connections):
        settings.EMAIL_BACKEND = "anymail.backends.postmark.EmailBackend"
        settings.ANYMAIL = {
            "POSTMARK_SERVER_TOKEN": "test-token",
            "POSTMARK_API_URL": f"http://127.0.0.1:{port}/",
            "REQUESTS_TIMEOUT": 1,
        }
        rows = MessageFactory.create_batch(5)
        started = time.monotonic()
        outbox.deliver(rows[0].pk, along=outbox.BATCH - 1)
        assert time.monotonic() - started < 4
    assert len(connections) == 1
    statuses = [Message.objects.get(pk=row.pk) for row in rows]
    # The API took the first request and never answered: it may have sent that email.
    assert [(m.status, m.attempts) for m in statuses] == [("sending", 1)] + [("pending", 0)] * 4
    assert statuses[0].error.startswith("No answer after the whole message was sent")


def test_a_4xx_for_one_address_does_not_stop_the_batch(smtp):
    with smtp_server() as (port, server):
        smtp(port)
        rows = MessageFactory.create_batch(3)
        server.rcpt_answers = {rows[0].to: "450 4.2.1 Try this one later"}
        with pytest.raises(outbox.TemporaryFailure):
            outbox.deliver(rows[0].pk, along=2)
    assert [status_of(row) for row in rows] == ["pending", "sent", "sent"]


def header(raw: str, name: str) -> str:
    return email.message_from_string(raw)[name]


def test_a_retried_row_keeps_its_message_id_and_its_key_over_smtp(smtp, settings):
    # Resend's SMTP relay drops a second message with the same Resend-Idempotency-Key.
    settings.RAILMAIL_IDEMPOTENCY_HEADER = "Resend-Idempotency-Key"
    with smtp_server(data_answers=["451 4.3.0 Try again later"]) as (port, server):
        smtp(port)
        message = pending_message()
        with pytest.raises(outbox.TemporaryFailure):
            outbox.deliver(message.pk)
        message.refresh_from_db()
        assert outbox.deliver(message.pk, message.next_attempt_at).status == "sent"
    first, second = server.seen
    assert server.received == [second]
    assert (
        header(first, "Message-ID") == header(second, "Message-ID") == compose.message_id(message)
    )
    key = header(first, "Resend-Idempotency-Key")
    assert key == header(second, "Resend-Idempotency-Key") == message.token


def test_a_retried_row_keeps_its_message_id_and_its_key_at_brevo(settings, monkeypatch):
    # Brevo's API drops a second request with the same headers.idempotencyKey (15 min).
    settings.RAILMAIL_IDEMPOTENCY_HEADER = "idempotencyKey"
    settings.EMAIL_BACKEND = "anymail.backends.brevo.EmailBackend"
    with recording_api(500, 201, body={"messageId": "<abc@smtp-relay.brevo.com>"}) as (
        url,
        requests,
    ):
        settings.ANYMAIL = {
            "BREVO_API_KEY": "test-key",
            "BREVO_API_URL": url,
            # Brevo has no per-message tracking switch (deploy/README.md): without this,
            # anymail refuses every email that turns tracking off.
            "IGNORE_UNSUPPORTED_FEATURES": True,
        }
        message = pending_message()
        with pytest.raises(outbox.TemporaryFailure):
            outbox.deliver(message.pk)
        message.refresh_from_db()
        # The retry comes later and builds the email again: its links must not change.
        move_signing_clock(monkeypatch, 60)
        assert outbox.deliver(message.pk, message.next_attempt_at).status == "sent"
    first, second = (request["headers"] for request in requests)
    assert first["idempotencyKey"] == second["idempotencyKey"] == message.token
    assert first["Message-ID"] == second["Message-ID"] == compose.message_id(message)
    assert json.dumps(requests[0]) == json.dumps(requests[1])  # the very same request


def test_a_server_that_takes_the_whole_message_and_never_answers_leaves_it_in_doubt(smtp, settings):
    settings.ADMINS = [("Ops", "ops@example.org")]
    with smtp_server() as (port, server):
        server.hang_after = 0  # it has the message, and never says so
        smtp(port)
        rows = MessageFactory.create_batch(3)
        result = outbox.deliver(rows[0].pk, along=2)
        assert len(server.hung) == 1
        server.hang_after = None
    # It may have been delivered: "sending", for the operator, never sent again blindly.
    assert result.status == Message.Status.SENDING
    assert result.error.startswith("No answer after the whole message was sent")
    assert [status_of(row) for row in rows] == ["sending", "pending", "pending"]
    later = timezone.now() + outbox.STUCK_AFTER
    assert [pk for pk, _due in outbox.due_rows(later)] == [row.pk for row in rows[1:]]
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"  # the operator's
    assert outbox.report_stuck(later) == 1
    [told] = [m for m in mail.outbox if m.to == ["ops@example.org"]]
    assert compose.message_id(rows[0]) in told.body and "No answer after" in told.body


def test_a_message_without_an_answer_is_tried_again_where_the_provider_drops_repeats(
    smtp, settings
):
    settings.RAILMAIL_IDEMPOTENCY_HEADER = "Resend-Idempotency-Key"
    with smtp_server() as (port, server):
        server.hang_after = 0
        smtp(port)
        message = pending_message()
        with pytest.raises(outbox.TemporaryFailure):
            outbox.deliver(message.pk)
        server.hang_after = None
    assert status_of(message) == Message.Status.PENDING  # the key makes a retry safe
