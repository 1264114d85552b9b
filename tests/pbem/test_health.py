"""The health checks: /health/live for load balancers, /health/ for monitors."""

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from games.tasks import scan_clock
from notifications import emails
from notifications.models import Message
from pbem.celery import app as celery_app

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def own_shared_cache(settings):
    """A shared cache of this test's own, so parallel tests never see each other's scan."""
    settings.CACHES = {
        **settings.CACHES,
        "shared": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"health-{uuid.uuid4()}",
        },
    }


def test_liveness_needs_only_the_process_and_the_database(client, settings):
    # Asked by IP address and over plain HTTP, as load balancers do: no host check, no
    # redirect to HTTPS.
    settings.SECURE_SSL_REDIRECT = True
    response = client.get("/health/live", HTTP_HOST="10.1.2.3")
    assert response.status_code == 200
    assert response.content == b"database: ok\n"
    assert response["Cache-Control"] == "no-store"


def test_the_full_check_fails_until_the_minute_scan_has_run(client):
    response = client.get("/health/", HTTP_HOST="10.1.2.3")
    assert response.status_code == 503
    assert "minute scan: FAILED: the minute scan has never run" in response.content.decode()
    scan_clock()
    response = client.get("/health/", HTTP_HOST="10.1.2.3")
    body = response.content.decode()
    assert response.status_code == 200, body
    assert "minute scan: ok, 0 s ago" in body and "outbox: ok, nothing pending" in body


def test_an_overdue_email_fails_the_full_check(client):
    scan_clock()
    message = emails.login_link("ada@example.org", "https://railmail.example.org/l/t/")
    Message.objects.filter(pk=message.pk).update(
        next_attempt_at=timezone.now() - timedelta(hours=1)
    )
    response = client.get("/health/")
    assert response.status_code == 503
    assert "outbox: FAILED: the oldest pending email is 36" in response.content.decode()


def test_a_broker_that_does_not_answer_fails_the_full_check_and_shows_no_address(
    client, settings, monkeypatch
):
    scan_clock()
    settings.CELERY_TASK_ALWAYS_EAGER = False
    # Nothing listens on port 9 of this machine: the connection is refused at once.
    monkeypatch.setattr(celery_app.conf, "broker_url", "redis://:s3cret@127.0.0.1:9/0")
    response = client.get("/health/")
    body = response.content.decode()
    assert response.status_code == 503
    assert "broker: FAILED: OperationalError" in body
    assert "127.0.0.1" not in body and "s3cret" not in body
    # The liveness check does not look at the broker.
    assert client.get("/health/live").status_code == 200


def test_other_methods_and_paths_go_to_the_site(client):
    assert client.post("/health/live").status_code != 200
    assert client.get("/healthz").status_code == 404
