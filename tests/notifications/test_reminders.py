"""Reminders before a move is due, with the clock moved by passing ``now``."""

from datetime import timedelta

import pytest

from notifications import reminders
from notifications.models import Message
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


def test_a_turn_is_scheduled_for_its_first_reminder_and_then_the_next():
    game = timed_game()
    assert game.remind_at == game.deadline - timedelta(hours=24)
    run_minute_jobs(game.deadline - timedelta(hours=23))
    game.refresh_from_db()
    assert game.remind_at == game.deadline - timedelta(hours=2)
    run_minute_jobs(game.deadline - timedelta(hours=1))
    game.refresh_from_db()
    assert game.remind_at is None


def test_games_whose_reminder_went_never_hold_up_the_others(monkeypatch):
    # The scan reads only games whose reminder has come, not the first games by deadline:
    # a batch of one still reaches the second game.
    monkeypatch.setattr(reminders, "BATCH", 1)
    first, second = timed_game(), timed_game()
    moment = max(first.deadline, second.deadline) - timedelta(hours=20)
    assert run_minute_jobs(moment)["reminders"] == 1
    assert run_minute_jobs(moment)["reminders"] == 1
    assert run_minute_jobs(moment)["reminders"] == 0
    reminded = Message.objects.filter(kind="reminder").values_list("game", flat=True)
    assert sorted(reminded) == sorted([first.pk, second.pk])
