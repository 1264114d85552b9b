"""Reminders before a move is due, with the clock moved by passing ``now``."""

from datetime import timedelta

import pytest

from tests.conftest import sent
from tests.factories import UserFactory, timed_game
from tests.minute_jobs import run_minute_jobs

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("anymail_backend")]


def test_reminders_go_once_each_at_24_and_2_hours_before(django_capture_on_commit_callbacks):
    game = timed_game()
    to_move = f"seat{game.seat_to_move}@example.com"
    with django_capture_on_commit_callbacks(execute=True):
        assert run_minute_jobs(game.deadline - timedelta(hours=30)).get("reminders", 0) == 0
        assert run_minute_jobs(game.deadline - timedelta(hours=23))["reminders"] == 1
        assert run_minute_jobs(game.deadline - timedelta(hours=22)).get("reminders", 0) == 0
        assert run_minute_jobs(game.deadline - timedelta(hours=1))["reminders"] == 1
        assert run_minute_jobs(game.deadline - timedelta(minutes=1)).get("reminders", 0) == 0
    reminders = sent("reminder")
    assert [m.to for m in reminders] == [[to_move], [to_move]]
    assert "within 24 hours" in reminders[0].subject
    assert "within 2 hours" in reminders[1].subject
    assert game.display_name in reminders[0].subject


def test_players_who_turned_reminders_off_get_none(django_capture_on_commit_callbacks):
    game = timed_game()
    game.seats.filter(position=game.seat_to_move).update(
        user=UserFactory(reminders=False), email="x@example.com"
    )
    with django_capture_on_commit_callbacks(execute=True):
        run_minute_jobs(game.deadline - timedelta(hours=1))
    assert sent("reminder") == []
