"""The provider's tracking webhook (here Postmark's, through anymail) stops mail."""

import base64
import json

import pytest
from django.test import Client

from notifications.models import Suppression

pytestmark = pytest.mark.django_db

URL = "/mail/anymail/postmark/tracking/"


@pytest.fixture(autouse=True)
def webhook_secret(settings):
    settings.ANYMAIL_ESP = "postmark"
    settings.ANYMAIL = {"WEBHOOK_SECRET": "railmail:s3cret"}


def post(payload: dict, secret: str = "railmail:s3cret"):
    auth = base64.b64encode(secret.encode()).decode()
    # Providers send no CSRF token: the shared secret is what secures the webhook.
    return Client(enforce_csrf_checks=True).post(
        URL,
        json.dumps(payload),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Basic {auth}",
    )


def bounce(kind: str = "HardBounce", address: str = "Seat0@Example.com") -> dict:
    return {
        "RecordType": "Bounce",
        "Type": kind,
        "TypeCode": 1 if kind == "HardBounce" else 4096,
        "MessageID": "883953f4-6105-42a2-a16a-77a8eac79483",
        "Email": address,
        "BouncedAt": "2026-11-21T10:00:00Z",
        "Description": "The server was unable to deliver your message",
        "Details": "smtp;550 5.1.1 The email account does not exist.",
    }


def test_a_hard_bounce_stops_mail_to_the_address():
    assert post(bounce()).status_code == 200
    stopped = Suppression.objects.get()
    assert stopped.address == "seat0@example.com"
    assert stopped.reason == Suppression.Reason.BOUNCED
    assert stopped.detail.startswith("Postmark: The server was unable")


def test_a_complaint_stops_mail_to_the_address():
    payload = {
        "RecordType": "SpamComplaint",
        "MessageID": "00000000-0000-0000-0000-000000000000",
        "Email": "seat1@example.com",
        "BouncedAt": "2026-11-21T10:00:00Z",
        "Type": "SpamComplaint",
        "TypeCode": 512,
    }
    assert post(payload).status_code == 200
    assert Suppression.objects.get().reason == Suppression.Reason.COMPLAINED


def test_a_temporary_delivery_problem_does_not_stop_mail():
    assert post(bounce("Transient")).status_code == 200
    assert not Suppression.objects.exists()


def test_the_webhook_refuses_a_wrong_secret():
    assert post(bounce(), secret="railmail:guess").status_code in (400, 403)
    assert not Suppression.objects.exists()


# Issue 13: only the configured provider's webhooks, each authenticated.


def test_another_providers_webhook_is_not_mounted():
    for url in ["/mail/anymail/mailgun/tracking/", "/mail/anymail/sendgrid/tracking/"]:
        response = Client().post(url, json.dumps(bounce()), content_type="application/json")
        assert response.status_code == 404
    assert not Suppression.objects.exists()


def test_no_webhook_is_mounted_without_a_provider(settings):
    settings.ANYMAIL_ESP = ""
    assert post(bounce()).status_code == 404
    assert not Suppression.objects.exists()


def test_the_webhook_refuses_a_request_without_credentials():
    response = Client().post(URL, json.dumps(bounce()), content_type="application/json")
    assert response.status_code in (400, 403)
    assert not Suppression.objects.exists()


MAILGUN_URL = "/mail/anymail/mailgun/tracking/"


def mailgun_event(signing_key: str) -> dict:
    """A Mailgun "failed" (permanent) event, signed as Mailgun signs it."""
    import hashlib
    import hmac

    timestamp, token = "1763719200", "a8ce0edb2dd8301dee6c2405235584e45aa91d1e9f979f3de0"
    signature = hmac.new(
        signing_key.encode(), f"{timestamp}{token}".encode(), hashlib.sha256
    ).hexdigest()
    return {
        "signature": {"timestamp": timestamp, "token": token, "signature": signature},
        "event-data": {
            "event": "failed",
            "severity": "permanent",
            "timestamp": 1763719200.0,
            "id": "G9Bn5sl1TC6nu79C8C0bwg",
            "recipient": "seat0@example.com",
            "reason": "bounce",
            "delivery-status": {"code": 550, "message": "No such mailbox", "description": ""},
            "message": {"headers": {"message-id": "20251121.1@railmail.example.org"}},
        },
    }


@pytest.fixture
def mailgun(settings):
    settings.ANYMAIL_ESP = "mailgun"
    settings.ANYMAIL = {
        "WEBHOOK_SECRET": "railmail:s3cret",
        "MAILGUN_WEBHOOK_SIGNING_KEY": "the-signing-key",
    }


def post_mailgun(payload: dict):
    auth = base64.b64encode(b"railmail:s3cret").decode()
    return Client().post(
        MAILGUN_URL,
        json.dumps(payload),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Basic {auth}",
    )


def test_the_providers_own_signature_is_checked(mailgun):
    # The right basic-auth secret, but a signature made with another key: refused.
    assert post_mailgun(mailgun_event("a-guessed-key")).status_code in (400, 403)
    assert not Suppression.objects.exists()
    assert post_mailgun(mailgun_event("the-signing-key")).status_code == 200
    assert Suppression.objects.get().address == "seat0@example.com"
