"""helpers.postgresql: a kept connection is checked before use only once it has been idle."""

import time

import psycopg
import pytest
from django.db import OperationalError, close_old_connections, connection

from games.models import Game
from helpers.postgresql import base as backend

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def kept_connection(monkeypatch):
    """The default connection kept from request to request, as production keeps it."""
    monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", None)
    connection.close()
    yield connection
    connection.close()


def a_request() -> int:
    """What a request does: Django's hooks as it starts and ends, a query between them."""
    close_old_connections()
    try:
        return Game.objects.count()
    finally:
        close_old_connections()


def closed_by_the_server(kept) -> None:
    """End ``kept``'s session from another one, as a server restart or timeout does."""
    pid = kept.connection.info.backend_pid
    settings = kept.settings_dict
    with psycopg.connect(
        host=settings["HOST"], port=settings["PORT"], user=settings["USER"], dbname=settings["NAME"]
    ) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
    time.sleep(0.05)  # the session is gone once the server says so; give it the moment


def test_a_connection_idle_for_a_while_is_checked_and_replaced(kept_connection, monkeypatch):
    monkeypatch.setattr(backend, "IDLE_SECONDS", 0.1)
    assert a_request() == 0
    closed_by_the_server(kept_connection)
    time.sleep(0.2)
    assert a_request() == 0  # the check found it gone, and a new one answered


def test_a_connection_used_moments_ago_is_trusted_and_replaced_after_its_error(
    kept_connection, monkeypatch
):
    monkeypatch.setattr(backend, "IDLE_SECONDS", 60)
    assert a_request() == 0
    closed_by_the_server(kept_connection)
    with pytest.raises(OperationalError):
        a_request()  # no round trip to check it first
    assert a_request() == 0
