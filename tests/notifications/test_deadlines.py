"""The deadline scan, with the clock moved by passing ``now``."""

from datetime import timedelta

import pytest
from django.core import mail
from django.core.management import call_command
from django.utils import timezone

from games.models import Game
from games.services import take_seat_back
from notifications import deadlines
from notifications.models import Message
from tests.factories import GameFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def anymail_backend(settings):
    settings.EMAIL_BACKEND = "anymail.backends.test.EmailBackend"


def timed_game(**fields) -> Game:
    game = GameFactory(time_per_move=timedelta(days=2))
    if fields:
        Game.objects.filter(pk=game.pk).update(**fields)
        game.refresh_from_db()
    return game


def kinds(kind: str) -> list:
    return [m for m in mail.outbox if m.tags == [kind]]


def test_reminders_go_once_each_at_24_and_2_hours_before(django_capture_on_commit_callbacks):
    game = timed_game()
    to_move = f"seat{game.seat_to_move}@example.com"
    with django_capture_on_commit_callbacks(execute=True):
        assert deadlines.scan(now=game.deadline - timedelta(hours=30)).get("reminders", 0) == 0
        assert deadlines.scan(now=game.deadline - timedelta(hours=23))["reminders"] == 1
        assert deadlines.scan(now=game.deadline - timedelta(hours=22)).get("reminders", 0) == 0
        assert deadlines.scan(now=game.deadline - timedelta(hours=1))["reminders"] == 1
        assert deadlines.scan(now=game.deadline - timedelta(minutes=1)).get("reminders", 0) == 0
    reminders = kinds("reminder")
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
        deadlines.scan(now=game.deadline - timedelta(hours=1))
    assert kinds("reminder") == []


def test_at_the_deadline_a_bot_plays_the_absent_players_turn():
    game = timed_game()
    seat_to_move, version = game.seat_to_move, game.version
    report = deadlines.scan(now=game.deadline + timedelta(minutes=1))
    assert report["timeouts"] == 1
    game.refresh_from_db()
    assert game.seat_to_move != seat_to_move
    log = game.engine_events()[version:]
    assert [e["type"] for e in log][:2] == ["turn_timed_out", "start_placed"]
    assert log[0]["seat"] == seat_to_move and log[1]["seat"] == seat_to_move
    # Scanning again at the same moment does nothing more.
    assert deadlines.scan(now=game.deadline - timedelta(days=1)).get("timeouts", 0) == 0
    call_command("rebuild_projections", "--check")


def test_when_the_game_waits_the_deadline_stops_until_the_player_moves():
    game = timed_game(on_timeout=Game.OnTimeout.WAIT)
    seat_to_move = game.seat_to_move
    deadlines.scan(now=game.deadline + timedelta(minutes=1))
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
        deadlines.scan(now=later)
    game.refresh_from_db()
    seats = list(game.seats.order_by("position"))
    assert all(seat.autopilot for seat in seats)
    assert [s.timeouts_in_a_row for s in seats] == [3, 3, 3]
    types = [e["type"] for e in game.engine_events()]
    assert types.count("seat_taken_by_bot") == 3
    told = Message.objects.filter(kind="bot_took_over").order_by("pk")
    assert told.count() == 9  # everyone is told, for each seat taken
    assert "A bot now plays for Player 0" in told[0].subject

    # A seat on autopilot is played at the next scan, with no timeout recorded.
    timeouts = types.count("turn_timed_out")
    deadlines.scan(now=timezone.now() + timedelta(seconds=1))
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


def test_a_daily_digest_lists_the_games_waiting_once_a_day(django_capture_on_commit_callbacks):
    user = UserFactory(email_mode="daily_digest")
    games = [GameFactory(), GameFactory()]
    for game in games:
        game.seats.filter(position=game.seat_to_move).update(user=user, email=user.email)
    morning = timezone.now().replace(hour=8)
    with django_capture_on_commit_callbacks(execute=True):
        assert deadlines.scan(now=morning.replace(hour=5))["digests"] == 0
        assert deadlines.scan(now=morning)["digests"] == 1
        assert deadlines.scan(now=morning + timedelta(hours=1))["digests"] == 0
    [digest] = kinds("digest")
    assert digest.to == [user.email]
    assert digest.subject == "2 games waiting for your move"
    for game in games:
        assert game.display_name in digest.body
    assert Message.objects.filter(kind="digest").count() == 1


def test_a_move_of_ones_own_ends_the_run_of_timeouts():
    from tests.conftest import play_turn

    game = timed_game()
    late = game.seat_to_move
    deadlines.scan(now=game.deadline + timedelta(minutes=1))  # a timeout; the bot moves
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
