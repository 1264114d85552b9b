import importlib
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import migrations


@pytest.mark.django_db
def test_the_models_and_migrations_agree():
    call_command("makemigrations", "--check", "--dry-run", stdout=StringIO())


def test_the_user_model_is_created_by_the_first_migration():
    first = importlib.import_module("accounts.migrations.0001_initial").Migration
    created = [op.name for op in first.operations if isinstance(op, migrations.CreateModel)]
    assert "User" in created
