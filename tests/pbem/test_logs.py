"""The operator's logs: one line per request and task, never a token."""

import logging
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.core import mail
from django.test import override_settings
from django.urls import reverse
from gunicorn.config import Config

from games.links import seat_path
from pbem.gunicorn_logger import RedactingLogger
from pbem.logs import RedactingAdminEmailHandler, redact_path, redact_path_in
from tests.factories import GameFactory


@pytest.mark.parametrize(
    ("path", "logged"),
    [
        ("/s/eyJnIjo.1x:sig/", "/s/<token>/"),
        ("/s/eyJnIjo.1x:sig/history/", "/s/<token>/history/"),
        ("/accounts/login/abc:def/", "/accounts/login/<token>/"),
        ("/mail/unsubscribe/InNl:1x/", "/mail/unsubscribe/<token>/"),
        ("/mail/seat/eyJ:1x/take-back/", "/mail/seat/<token>/take-back/"),
        ("/history/", "/history/"),
        ("/accounts/login/", "/accounts/login/"),
    ],
)
def test_tokens_in_paths_are_redacted(path, logged):
    assert redact_path(path) == logged
    assert redact_path_in(f"GET {path} HTTP/1.1") == f"GET {logged} HTTP/1.1"


@pytest.mark.django_db
def test_each_request_is_one_line_with_its_game_and_seat_and_no_token(client, caplog):
    game = GameFactory()
    seat = game.seats.get(position=1)
    path = seat_path(seat)
    with caplog.at_level(logging.INFO, logger="railmail.requests"):
        assert client.get(path).status_code == 200
    [record] = [r for r in caplog.records if r.name == "railmail.requests"]
    message = record.getMessage()
    assert message.startswith("method=GET path=/s/<token>/ status=200 ms=")
    assert f"game={game.pk} seat=1" in message
    assert path.split("/")[2] not in caplog.text


@pytest.mark.django_db
def test_error_emails_to_admins_carry_no_token(rf, settings):
    settings.ADMINS = [("Ops", "ops@example.org")]
    request = rf.get("/s/secret-token-123/")
    record = logging.LogRecord(
        "django.request",
        logging.ERROR,
        __file__,
        1,
        "Internal Server Error: %s",
        ("/s/secret-token-123/",),
        None,
    )
    record.request = request
    with override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend"):
        RedactingAdminEmailHandler().emit(record)
    [email] = mail.outbox
    assert "Internal Server Error: /s/<token>/" in email.subject
    assert "secret-token-123" not in email.subject + email.body


def test_gunicorns_access_log_carries_no_token():
    logger = RedactingLogger(Config())
    response = SimpleNamespace(status="200 OK", sent=10, response_length=10, headers=[])
    request = SimpleNamespace(headers=[], method="GET", path="/s/tok:en/join/", query="")
    environ = {
        "REQUEST_METHOD": "GET",
        "RAW_URI": "/s/tok:en/join/",
        "PATH_INFO": "/s/tok:en/join/",
        "QUERY_STRING": "",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_REFERER": "https://railmail.example.org/s/tok:en/",
    }
    atoms = logger.atoms(response, request, environ, timedelta(0))
    assert "tok:en" not in atoms["r"] + atoms["U"] + atoms["f"]
    assert atoms["r"] == "GET /s/<token>/join/ HTTP/1.1"
    assert atoms["U"] == "/s/<token>/join/"
    assert atoms["f"] == "https://railmail.example.org/s/<token>/"


@pytest.mark.parametrize(
    ("name", "logged"),
    [
        ("games:seat", "/s/<token>/"),
        ("accounts:login_confirm", "/accounts/login/<token>/"),
        ("notifications:unsubscribe", "/mail/unsubscribe/<token>/"),
        ("notifications:take_seat_back", "/mail/seat/<token>/take-back/"),
    ],
)
def test_every_url_with_a_token_is_redacted(name, logged):
    # The URL patterns and the redaction must not drift apart.
    assert redact_path(reverse(name, args=["abc:def"])) == logged


@pytest.mark.django_db
def test_each_task_is_one_line_with_its_ids_and_outcome(caplog):
    from notifications import emails, tasks

    message = emails.login_link("ada@example.org", "https://railmail.example.org/l/t/")
    with caplog.at_level(logging.INFO, logger="railmail.tasks"):
        tasks.deliver.delay(message.pk)
    [record] = [r for r in caplog.records if r.name == "railmail.tasks"]
    text = record.getMessage()
    assert text.startswith("task=notifications.tasks.deliver id=")
    assert "outcome=success ms=" in text and text.endswith(f"ids={message.pk}")
