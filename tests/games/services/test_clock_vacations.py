"""Vacations pause a player's clocks (games.services, games.derived.projection), and the deadline
scan ends them; the clock is moved by passing ``now``."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from games.models import Game
from games.services import VacationError, end_vacation, start_vacation
from notifications.models import Message
from tests.factories import GameFactory, UserFactory, timed_game
from tests.minute_jobs import run_minute_jobs

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)


def seat_user(game: Game, position: int, user=None):
    user = user or UserFactory()
    game.seats.filter(position=position).update(user=user, email=user.email)
    return user


def types(game: Game) -> list[str]:
    return [event["type"] for event in game.engine_events()]


def reminders(game: Game) -> int:
    return Message.objects.filter(game=game, kind="reminder").count()


def test_a_paused_seat_never_times_out_nor_is_reminded_and_then_has_the_time_it_had_left():
    game = timed_game()
    user = seat_user(game, game.seat_to_move)
    deadline, mover = game.deadline, game.seat_to_move
    began = deadline - timedelta(hours=36)  # 12 hours into the turn

    assert start_vacation(user, 5, now=began) == began + 5 * DAY
    game.refresh_from_db()
    assert game.deadline is None  # the clock is stopped: the scan never finds the game
    assert types(game)[-1] == "clock_paused"
    for moment in (began + timedelta(hours=1), deadline - timedelta(hours=1), deadline + DAY):
        report = run_minute_jobs(moment)
        assert report["deadlines due"] == 0 and report["reminders"] == 0
    back = began + 5 * DAY
    run_minute_jobs(back - timedelta(minutes=1))
    game.refresh_from_db()
    assert "turn_timed_out" not in types(game)
    assert reminders(game) == 0
    assert game.seat_to_move == mover

    # The scan ends the vacation once it has run out, recording the resume at its end.
    assert run_minute_jobs(back + timedelta(minutes=1))["vacations ended"] == 1
    assert "vacations ended" not in run_minute_jobs(back + timedelta(minutes=2))
    game.refresh_from_db()
    user.refresh_from_db()
    assert user.vacation_until is None and user.vacation_days_left == 9
    assert types(game)[-2:] == ["clock_paused", "clock_resumed"]
    assert game.deadline == deadline + 5 * DAY  # later by exactly the paused time
    call_command("rebuild_projections", "--check")

    # The remaining 36 hours run as usual: a reminder, then the timeout.
    assert run_minute_jobs(game.deadline - timedelta(hours=1))["reminders"] == 1
    assert run_minute_jobs(game.deadline + timedelta(minutes=1))["deadlines due"] == 1
    call_command("rebuild_projections", "--check")


def test_other_players_clocks_are_unaffected():
    game = timed_game()
    mover = game.seat_to_move
    away = (mover + 1) % 3
    user = seat_user(game, away)
    deadline = game.deadline

    until = start_vacation(user, 3, now=timezone.now())
    game.refresh_from_db()
    assert game.deadline == deadline  # another seat's pause starts no new turn
    call_command("rebuild_projections", "--check")

    # The player to move times out as usual; when the turn comes to the absent player,
    # their clock is stopped.
    run_minute_jobs(deadline + timedelta(minutes=1))
    game.refresh_from_db()
    assert types(game).count("turn_timed_out") == 1
    assert game.seat_to_move == away
    assert game.deadline is None

    # Their vacation ends later: the whole turn's time is theirs from then.
    run_minute_jobs(until + timedelta(minutes=1))
    game.refresh_from_db()
    assert game.deadline == until + timedelta(days=2)
    call_command("rebuild_projections", "--check")


def test_the_vacation_pauses_every_active_game_of_the_player():
    user = UserFactory()
    games = [timed_game(), timed_game(), GameFactory(started=False)]
    for game in games:
        seat_user(game, 1, user)
    start_vacation(user, 2, now=timezone.now())
    for game in games[:2]:
        assert types(game)[-1] == "clock_paused"
    assert "clock_paused" not in types(games[2])  # not started: no clock to stop


def test_a_game_begun_during_the_vacation_is_paused_by_the_next_scan():
    user = UserFactory()
    now = timezone.now()
    start_vacation(user, 2, now=now)
    game = timed_game()
    seat_user(game, game.seat_to_move, user)
    assert run_minute_jobs(now + timedelta(minutes=1))["clocks paused"] == 1
    assert "clocks paused" not in run_minute_jobs(now + timedelta(minutes=2))
    game.refresh_from_db()
    assert game.deadline is None
    assert types(game).count("clock_paused") == 1
    call_command("rebuild_projections", "--check")


def test_ending_early_gives_back_the_whole_days_not_begun():
    game = timed_game()
    user = seat_user(game, game.seat_to_move)
    deadline = game.deadline
    began = deadline - DAY
    start_vacation(user, 5, now=began)
    assert user.vacation_days_left == 9

    # Back after a day and a half: 3.5 days unused, 3 whole days come back.
    assert end_vacation(user, now=began + timedelta(hours=36)) == 3
    user.refresh_from_db()
    assert user.vacation_days_left == 12 and user.vacation_until is None
    game.refresh_from_db()
    assert game.deadline == deadline + timedelta(hours=36)
    # Ending it again, or the scan, changes nothing more.
    assert end_vacation(user, now=began + 2 * DAY) == 0
    assert "vacations ended" not in run_minute_jobs(began + 2 * DAY)
    assert types(game).count("clock_resumed") == 1
    call_command("rebuild_projections", "--check")


def test_the_allowance_is_consumed_and_never_goes_negative():
    user = UserFactory()
    now = timezone.now()
    for days in (0, -1, 15):
        with pytest.raises(VacationError, match="between 1 and 14"):
            start_vacation(user, days, now=now)
    start_vacation(user, 10, now=now)
    with pytest.raises(VacationError, match="already on vacation"):
        start_vacation(user, 1, now=now + DAY)
    # A vacation that ran out but that the scan has not ended yet is ended first.
    later = now + 11 * DAY
    with pytest.raises(VacationError, match="between 1 and 4"):
        start_vacation(user, 5, now=later)
    start_vacation(user, 4, now=later)
    user.refresh_from_db()
    assert user.vacation_days_left == 0
    with pytest.raises(VacationError, match="no vacation days left"):
        start_vacation(user, 1, now=later + 5 * DAY)
    user.refresh_from_db()
    assert user.vacation_days_left == 0
