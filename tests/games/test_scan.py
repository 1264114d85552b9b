"""The minute's jobs only read and hand work on: each due game, vacation, clock, reminder
and digest goes to its own task (games.tasks, notifications.tasks), found by index scans
of the few rows concerned."""

import logging
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import User
from games import tasks as game_tasks
from games.models import Event, Game
from games.services import start_vacation
from notifications import tasks as mail_tasks
from tests.factories import UserFactory, timed_game
from tests.faults import broker_down
from tests.minute_jobs import run_minute_jobs

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued(monkeypatch):
    """The tasks the jobs queue, recorded instead of run: (task name, first argument)."""
    calls = []
    for module, name in [
        (game_tasks, "apply_deadline"),
        (game_tasks, "end_vacation"),
        (game_tasks, "pause_clock"),
        (mail_tasks, "send_reminder"),
        (mail_tasks, "send_digest"),
    ]:
        task = getattr(module, name)
        monkeypatch.setattr(
            task, "apply_async", lambda args, name=name, **options: calls.append((name, args[0]))
        )
    return calls


def seat_user(game, position, **fields):
    user = UserFactory(**fields)
    game.seats.filter(position=position).update(user=user, email=user.email)
    return user


def test_the_jobs_queue_a_task_for_each_due_thing_and_append_nothing(queued):
    now = timezone.now()
    late = timed_game()
    reminded = timed_game()
    later = timed_game()
    away = seat_user(later, later.seat_to_move)
    start_vacation(away, 2, now=now - timedelta(days=3))  # has run out
    begun = timed_game()
    on_leave = seat_user(begun, (begun.seat_to_move + 1) % 3)
    User.objects.filter(pk=on_leave.pk).update(vacation_until=now + timedelta(days=2))
    reader = seat_user(timed_game(), 0, email_mode="daily_digest")
    Game.objects.filter(pk=late.pk).update(deadline=now - timedelta(minutes=1))
    Game.objects.filter(pk=reminded.pk).update(remind_at=now - timedelta(seconds=1))
    events = Event.objects.count()

    report = run_minute_jobs(now.replace(hour=23))

    assert Event.objects.count() == events
    assert sorted(queued) == sorted(
        [
            ("apply_deadline", late.pk),
            ("end_vacation", away.pk),
            ("pause_clock", begun.seats.get(user=on_leave).pk),
            ("send_reminder", reminded.pk),
            ("send_digest", reader.email),
        ]
    )
    assert report["deadlines due"] == 1 and report["reminders"] == 1


def test_with_the_broker_down_the_scan_says_so_once_and_the_next_scan_does_the_work(caplog):
    now = timezone.now()
    away = UserFactory.create_batch(3)
    for user in away:
        start_vacation(user, 2, now=now - timedelta(days=3))  # has run out
    on_vacation = User.objects.filter(vacation_until__isnull=False)

    with broker_down(), caplog.at_level(logging.ERROR, logger="helpers.broker"):
        report = game_tasks.scan_clock(now.isoformat())

    # Every call would fail alike: one line for the batch, not one per task.
    assert report["vacations ended"] == 3
    assert caplog.messages == [
        "queueing 3 games.tasks.end_vacation tasks failed; the next scan finds their work again"
    ]
    assert on_vacation.count() == 3
    # The work is still due: with the broker back (here, in-process), the next scan does it.
    run_minute_jobs(now + timedelta(minutes=1))
    assert not on_vacation.exists()
