"""The backup and restore of deploy/README.md, exercised: dump, restore into a fresh
database, and every game there still derives from its log."""

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from celery import Celery
from django.db import connection

from games.models import Game
from notifications.models import Message
from pbem import celery_app
from tests.conftest import play_turn
from tests.factories import GameFactory, running_game_in_round_2, simulated_game

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@contextmanager
def unread_queue() -> Iterator[None]:
    """While in the block, tasks are queued (``.delay()``), in memory, and never run."""
    app = Celery("railmail-test-unread", set_as_current=False)
    app.config_from_object("django.conf:settings", namespace="CELERY")
    app.conf.update(broker_url="memory://localhost/", task_always_eager=False)
    app.set_current()
    app.set_default()
    try:
        yield
    finally:  # the rest of the suite queues through the project's app again
        celery_app.set_current()
        celery_app.set_default()


def test_a_dump_restores_into_a_fresh_database_where_every_game_replays(tmp_path):
    # The emails these games cause stay in the outbox, queued to a broker no worker reads:
    # composing them (their board pictures) took most of this test's time, and backs up
    # nothing more; their rows are dumped and restored all the same.
    with unread_queue():
        simulated_game(seed=3)
        running_game_in_round_2()
        play_turn(play_turn(GameFactory()))
        GameFactory(started=False)
    assert Message.objects.filter(status="pending").exists()
    db = connection.settings_dict
    server = f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}"
    dump = tmp_path / "railmail.dump"
    subprocess.run(
        ["pg_dump", "-Fc", "-d", f"{server}/{db['NAME']}", "-f", str(dump)],
        check=True,
        timeout=120,
    )
    restored = f"railmail_restored_{uuid.uuid4().hex[:8]}"
    admin = f"{server}/postgres"
    subprocess.run(["psql", admin, "-qc", f"CREATE DATABASE {restored}"], check=True)
    try:
        # Without waiting for each of its statements to reach the disk (half its time on
        # this machine): the restore itself is the README's.
        subprocess.run(
            ["pg_restore", "--no-owner", "-d", f"{server}/{restored}", str(dump)],
            check=True,
            timeout=120,
            env={**os.environ, "PGOPTIONS": "-c synchronous_commit=off"},
        )
        env = {**os.environ, "DATABASE_URL": f"{server}/{restored}"}
        # deploy/README.md's check, then every game's log replayed there through the engine,
        # in one process (each start of Django costs a second).
        check = subprocess.run(
            [sys.executable, "manage.py", "shell", "-v", "0", "-c", CHECK_AND_REPLAY_ALL],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert check.returncode == 0, check.stdout + check.stderr
        checked, *replayed = check.stdout.splitlines()
        assert checked == "0 game(s) differ."
        expected = sorted(f"{g.pk}:{g.version}:{g.scores}" for g in Game.objects.all())
        assert sorted(line for line in replayed if line) == expected
        restored_messages = "SELECT count(*) FROM notifications_message"
        with psycopg.connect(f"{server}/{restored}") as conn:
            assert conn.execute(restored_messages).fetchone()[0] == Message.objects.count()
    finally:
        subprocess.run(["psql", admin, "-qc", f"DROP DATABASE IF EXISTS {restored}"], check=True)


CHECK_AND_REPLAY_ALL = """
from django.core.management import call_command
from games import rules
from games.models import Game
call_command("rebuild_projections", check=True)
for game in Game.objects.order_by("pk"):
    state = rules.replay(game.engine_events())
    print(f"{game.pk}:{state.version}:{state.scores}")
"""
