import importlib
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection, migrations

from games.models import Event


@pytest.mark.django_db
def test_the_models_and_migrations_agree():
    call_command("makemigrations", "--check", "--dry-run", stdout=StringIO())


def test_the_user_model_is_created_by_the_first_migration():
    first = importlib.import_module("accounts.migrations.0001_initial").Migration
    created = [op.name for op in first.operations if isinstance(op, migrations.CreateModel)]
    assert "User" in created


@pytest.mark.django_db
def test_the_log_has_one_index_leading_with_its_game():
    # Every event a move appends writes each of the log's indexes: the unique (game, seq)
    # serves lookups by game, and no index of the game alone is kept beside it.
    with connection.cursor() as cursor:
        found = connection.introspection.get_constraints(cursor, Event._meta.db_table)
    leading = [
        name
        for name, info in found.items()
        if (info["index"] or info["unique"]) and info["columns"][:1] == ["game_id"]
    ]
    # The partial index of clock events (games_event_clock) holds a few rows only.
    leading = [name for name in leading if name != "games_event_clock"]
    assert leading == ["games_event_unique_seq"]
