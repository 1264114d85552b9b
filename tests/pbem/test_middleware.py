"""Outages (issue 13): the database down answers a friendly 503 with Retry-After, never a
bare 500; the broker down fails no request, and the minute's jobs catch up later."""

from contextlib import contextmanager

import pytest
from django.db import OperationalError, connection
from django.test import Client
from django.urls import reverse

from games.links import seat_path
from notifications import tasks
from notifications.models import Message
from pbem.views import server_error
from tests.factories import GameFactory, UserFactory
from tests.faults import broker_down, closed_port


@contextmanager
def database_down():
    """The default connection points at a PostgreSQL port where nothing listens, as while
    the server restarts; every query fails with psycopg's OperationalError."""
    port = connection.settings_dict["PORT"]
    connection.close()
    connection.settings_dict["PORT"] = str(closed_port())
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict["PORT"] = port


def assert_outage_page(response):
    assert response.status_code == 503
    assert response["Retry-After"] == "30"
    assert "Back in a moment" in response.content.decode()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_with_the_database_down_every_page_answers_503_with_retry_after():
    user = UserFactory()
    seat = GameFactory().seats.first()
    signed_in = Client(raise_request_exception=False)
    signed_in.force_login(user)
    anonymous = Client(raise_request_exception=False)
    path = seat_path(seat)
    with database_down():
        assert_outage_page(anonymous.get(reverse("games:home")))
        assert_outage_page(anonymous.get(path))
        assert_outage_page(anonymous.post(path, {"version": 1, "point": 1}))
        assert_outage_page(anonymous.post(reverse("accounts:login"), {"email": "a@b.org"}))
        # Signed in: the session itself is read from the database.
        assert_outage_page(signed_in.get(reverse("games:home")))
    # Back up: everything works again.
    assert anonymous.get(path).status_code == 200


@pytest.mark.django_db
def test_the_error_handler_answers_503_for_a_database_error(rf):
    try:
        raise OperationalError("server closed the connection unexpectedly")
    except OperationalError:
        response = server_error(rf.get("/"))
    assert_outage_page(response)


def test_the_error_handler_answers_500_for_anything_else(rf):
    try:
        raise ValueError("a bug")
    except ValueError:
        response = server_error(rf.get("/"))
    assert response.status_code == 500
    assert "Something went wrong" in response.content.decode()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_with_the_broker_down_sign_in_succeeds_and_the_sweep_sends_later(client):
    with broker_down():
        response = client.post(reverse("accounts:login"), {"email": "ada@example.org"})
    assert response.status_code == 302
    row = Message.objects.get(kind="login_link")
    assert row.status == Message.Status.PENDING  # written; its task was never queued
    # The broker is back: the minute's sweep finds the row whose task was lost.
    assert tasks.sweep_outbox(row.next_attempt_at.isoformat())["due"] == 1
    row.refresh_from_db()
    assert row.status == Message.Status.SENT


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_with_the_broker_down_every_form_that_sends_email_still_answers():
    from tests.games.views.test_setup import new_game_data

    creator = UserFactory()
    client = Client()
    client.force_login(creator)
    with broker_down():
        response = client.post(reverse("games:new"), new_game_data())
        assert response.status_code == 302
        game = creator.games_created.get()
        ada = game.seats.get(name="Ada")
        token = seat_path(ada).split("/")[2]
        remind = client.post(reverse("games:remind", args=[game.pk, ada.position]))
        assert remind.status_code == 302
        fresh = Client().post(reverse("games:fresh_link", args=[token]), {"email": ada.email})
        assert fresh.status_code == 200
        assert Client().post(reverse("games:join", args=[token])).status_code == 302
    # Every email is in the outbox, waiting for the sweep once the broker is back.
    rows = Message.objects.filter(to=ada.email)
    assert rows.count() == 3 and {row.status for row in rows} == {Message.Status.PENDING}
