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
