"""The backup and restore of deploy/README.md, exercised: dump, restore into a fresh
database, and every game there still derives from its log."""

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.db import connection

from games.models import Game
from tests.conftest import play_turn
from tests.factories import GameFactory, running_game_in_round_2, simulated_game

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_a_dump_restores_into_a_fresh_database_where_every_game_replays(tmp_path):
    simulated_game(seed=3)
    running_game_in_round_2()
    play_turn(play_turn(GameFactory()))
    GameFactory(started=False)
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
        subprocess.run(
            ["pg_restore", "--no-owner", "-d", f"{server}/{restored}", str(dump)],
            check=True,
            timeout=120,
        )
        env = {**os.environ, "DATABASE_URL": f"{server}/{restored}"}
        check = subprocess.run(
            [sys.executable, "manage.py", "rebuild_projections", "--check"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert check.returncode == 0, check.stdout + check.stderr
        assert "0 game(s) differ." in check.stdout
        # Every game's log replays there, through the engine, to the same scores.
        replayed = subprocess.run(
            [sys.executable, "manage.py", "shell", "-v", "0", "-c", REPLAY_ALL],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert replayed.returncode == 0, replayed.stderr
        expected = sorted(f"{g.pk}:{g.version}:{g.scores}" for g in Game.objects.all())
        assert sorted(line for line in replayed.stdout.splitlines() if line) == expected
    finally:
        subprocess.run(["psql", admin, "-qc", f"DROP DATABASE IF EXISTS {restored}"], check=True)


REPLAY_ALL = """
from games import rules
from games.models import Game
for game in Game.objects.order_by("pk"):
    state = rules.replay(game.engine_events())
    print(f"{game.pk}:{state.version}:{state.scores}")
"""
