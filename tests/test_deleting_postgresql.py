"""Between transactional tests the PostgreSQL pass empties the tables by DELETE
(tests/deleting_postgresql): every row goes, the append-only event log's too."""

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection

from games.models import Event, Game
from tests.factories import simulated_game

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_flush_empties_every_table_the_event_log_too():
    assert type(connection.ops).__module__ == "tests.deleting_postgresql.base"
    simulated_game(until=12)
    assert Event.objects.exists() and Game.objects.exists()
    # As Django's TransactionTestCase flushes.
    call_command(
        "flush", verbosity=0, interactive=False, reset_sequences=False, inhibit_post_migrate=True
    )
    full = [model.__name__ for model in apps.get_models() if model.objects.exists()]
    assert full == []
