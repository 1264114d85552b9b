"""Two Celery beats started by mistake do no harm: each minute job, run twice at once,
does its work once."""

import threading
from datetime import timedelta

import pytest
from django.db import connection

from games.models import Game
from games.tasks import scan_clock
from notifications.models import Message
from notifications.tasks import send_reminders_and_digests
from tests.factories import timed_game

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def twice_at_once(job, moment) -> None:
    """Run ``job(moment)`` in two threads at once, each on its own connection."""
    barrier = threading.Barrier(2)
    errors = []

    def run() -> None:
        try:
            barrier.wait(timeout=10)
            job(moment.isoformat())
        except Exception as exc:  # reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []


def test_two_clock_scans_at_once_apply_each_deadline_once():
    games = [timed_game(on_timeout=Game.OnTimeout.WAIT) for _ in range(3)]
    moment = max(game.deadline for game in games) + timedelta(minutes=1)
    twice_at_once(scan_clock, moment)
    for game in games:
        types = [event["type"] for event in game.engine_events()]
        assert types.count("turn_timed_out") == 1, types


def test_two_reminder_jobs_at_once_send_each_reminder_once():
    games = [timed_game() for _ in range(3)]
    moment = max(game.deadline for game in games) - timedelta(hours=1)
    twice_at_once(send_reminders_and_digests, moment)
    assert Message.objects.filter(kind="reminder").count() == 3
