"""What happens at a move's deadline, with the clock moved by passing ``now``."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from games.models import Game
from games.services import take_seat_back
from notifications.models import Message
from tests.conftest import delivered
from tests.factories import timed_game
from tests.minute_jobs import run_minute_jobs

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("anymail_backend")]


def test_at_the_deadline_a_bot_plays_the_absent_players_turn():
    game = timed_game()
    seat_to_move, version = game.seat_to_move, game.version
    report = run_minute_jobs(game.deadline + timedelta(minutes=1))
    assert report["deadlines due"] == 1
    game.refresh_from_db()
    assert game.seat_to_move != seat_to_move
    log = game.engine_events()[version:]
    assert [e["type"] for e in log][:2] == ["turn_timed_out", "start_placed"]
    assert log[0]["seat"] == seat_to_move and log[1]["seat"] == seat_to_move
    # Scanning again at the same moment does nothing more.
    assert run_minute_jobs(game.deadline - timedelta(days=1))["deadlines due"] == 0
    call_command("rebuild_projections", "--check")


def test_when_the_game_waits_the_deadline_stops_until_the_player_moves():
    game = timed_game(on_timeout=Game.OnTimeout.WAIT)
    seat_to_move = game.seat_to_move
    run_minute_jobs(game.deadline + timedelta(minutes=1))
    game.refresh_from_db()
    assert game.seat_to_move == seat_to_move
    assert game.deadline is None
    assert game.engine_events()[-1]["type"] == "turn_timed_out"
    call_command("rebuild_projections", "--check")


def test_after_three_timeouts_in_a_row_the_bot_keeps_the_seat_until_taken_back():
    # No commit happens inside the test's transaction, so the bots' after-commit hook
    # stays out of it: here the scan alone plays the seats it hands to a bot.
    game = timed_game()
    later = timezone.now() + timedelta(days=3)
    for _ in range(9):  # three timeouts for each of the three seats
        run_minute_jobs(later)
    game.refresh_from_db()
    seats = list(game.seats.order_by("position"))
    assert all(seat.autopilot for seat in seats)
    assert [s.timeouts_in_a_row for s in seats] == [3, 3, 3]
    types = [e["type"] for e in game.engine_events()]
    assert types.count("seat_taken_by_bot") == 3
    told = Message.objects.filter(kind="bot_took_over").order_by("pk")
    assert told.count() == 9  # everyone is told, for each seat taken
    assert "A bot now plays for Player 0" in delivered(told[0]).subject

    # A seat on autopilot is played at the next scan, with no timeout recorded.
    timeouts = types.count("turn_timed_out")
    run_minute_jobs(timezone.now() + timedelta(seconds=1))
    game.refresh_from_db()
    assert [e["type"] for e in game.engine_events()].count("turn_timed_out") == timeouts

    seat = game.seats.get(position=game.seat_to_move)
    game = take_seat_back(seat)
    seat.refresh_from_db()
    assert not seat.autopilot and seat.timeouts_in_a_row == 0
    assert game.engine_events()[-1] == {
        "type": "seat_taken_back",
        "seq": game.version,
        "seat": seat.position,
    }
    assert game.deadline > timezone.now() + timedelta(days=1)
    call_command("rebuild_projections", "--check")


def test_a_move_of_ones_own_ends_the_run_of_timeouts():
    from tests.conftest import play_turn

    game = timed_game()
    late = game.seat_to_move
    run_minute_jobs(game.deadline + timedelta(minutes=1))  # a timeout; the bot moves
    seat = game.seats.get(position=late)
    assert seat.timeouts_in_a_row == 1
    game.refresh_from_db()
    while game.seat_to_move != late:
        game = play_turn(game)
    seat.refresh_from_db()
    assert seat.timeouts_in_a_row == 1  # others' moves change nothing
    play_turn(game)  # the player's own move
    seat.refresh_from_db()
    assert seat.timeouts_in_a_row == 0
