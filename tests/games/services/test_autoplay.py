"""Bots at the table (games.services.autoplay): real games, through the one write path."""

import pytest

from games.bots import BOTS, DEFAULT_BOT
from games.models import Game, Seat
from games.services import SeatSpec, autoplay, create_game, load_state, start_game, submit_move
from tests.conftest import play_turn as play_greedy_turn

pytestmark = pytest.mark.django_db


def table(*seats: SeatSpec, board: str = "transamerica") -> Game:
    """A started game with these seats (no bot moves yet: nothing is committed in tests)."""
    return start_game(create_game(board, None, list(seats)))


HUMAN = SeatSpec("Ada", "ada@example.com")
HUMAN_2 = SeatSpec("Bo", "bo@example.com")


def bot(level: str = "greedy", name: str = "Bot") -> SeatSpec:
    return SeatSpec(name, is_bot=True, bot_level=level)


def seat_to_move(game: Game) -> Seat:
    return game.seats.get(position=game.seat_to_move)


def test_bot_for_reads_the_seats_level_and_defaults_to_the_strongest():
    game = table(bot("greedy"), bot(""), HUMAN)
    greedy, blank, human = game.seats.all()
    assert autoplay.bot_for(greedy) is BOTS["greedy"]
    assert autoplay.bot_for(blank) is BOTS[DEFAULT_BOT] is BOTS["strong"]
    assert autoplay.bot_for(human) is BOTS["strong"]  # a timed-out player's stand-in


def test_bot_for_refuses_a_level_that_names_no_bot():
    game = table(bot("greedy"), HUMAN)
    seat = game.seats.get(position=0)
    seat.bot_level = "grandmaster"
    with pytest.raises(ValueError, match="grandmaster"):
        autoplay.bot_for(seat)


@pytest.mark.parametrize("level", sorted(BOTS))
def test_play_turn_plays_a_legal_move_through_the_write_path(level):
    game = table(HUMAN, HUMAN_2)
    seat = seat_to_move(game)
    seat.bot_level = level
    before = game.version
    moved = autoplay.play_turn(game, seat, before, reason="timeout")
    assert moved is not None
    assert moved.version == before + 1
    [event] = moved.events.filter(seq=before + 1)
    assert event.type == "start_placed"
    assert event.data["seat"] == seat.position
    assert moved.seat_to_move != seat.position


def test_play_turn_returns_none_when_the_game_moved_on():
    game = table(HUMAN, HUMAN_2)
    seat = seat_to_move(game)
    seen = game.version
    game = play_greedy_turn(game)  # the player moved just before the deadline scan
    assert autoplay.play_turn(game, seat, seen, reason="timeout") is None
    assert Game.objects.get(pk=game.pk).version == seen + 1


def test_play_turn_returns_none_for_a_seat_that_is_not_to_move():
    game = table(HUMAN, HUMAN_2)
    waiting = game.seats.exclude(position=game.seat_to_move).get()
    assert autoplay.play_turn(game, waiting, game.version) is None
    assert Game.objects.get(pk=game.pk).version == game.version


def test_a_bot_answers_a_persons_move_right_after_it_commits(django_capture_on_commit_callbacks):
    game = table(HUMAN, bot("strong"))
    assert game.seat_to_move == 0  # round 1 starts with seat 0
    person = seat_to_move(game)
    state = load_state(game)
    from games.bots import greedy_move

    with django_capture_on_commit_callbacks(execute=True):
        game = submit_move(game, person, greedy_move(state, 0), game.version)
    game.refresh_from_db()
    assert game.seat_to_move == 0  # the bot has placed its marker: the person again
    [placed] = game.events.filter(type="start_placed", data__seat=1)
    assert load_state(game).starts[1] is not None
    assert placed.seq == game.version


def test_a_bot_that_starts_the_round_moves_when_the_game_starts(
    django_capture_on_commit_callbacks,
):
    with django_capture_on_commit_callbacks(execute=True):
        game = table(bot("greedy"), HUMAN)
    game.refresh_from_db()
    assert game.seat_to_move == 1
    assert game.events.filter(type="start_placed", data__seat=0).exists()


def test_a_seat_on_autopilot_is_played_by_the_bot(django_capture_on_commit_callbacks):
    game = table(HUMAN, HUMAN_2)
    Seat.objects.filter(game=game, position=1).update(autopilot=True)
    with django_capture_on_commit_callbacks(execute=True):
        game = play_greedy_turn(game)
    game.refresh_from_db()
    assert game.seat_to_move == 0
    assert game.events.filter(type="start_placed", data__seat=1).exists()


def test_a_table_of_bots_plays_a_whole_game_in_a_loop(django_capture_on_commit_callbacks):
    """In-process tasks: the bots play on in one loop, not one nested call per move."""
    with django_capture_on_commit_callbacks(execute=True):
        game = table(bot("greedy", "A"), bot("greedy", "B"))
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    state = load_state(game)
    assert state.is_over and state.winners
    assert game.events.filter(type="round_scored").count() == state.round


def test_play_bot_turns_stops_at_its_limit_and_at_a_person():
    game = table(bot("greedy", "A"), bot("greedy", "B"), HUMAN)
    played, game = autoplay.play_bot_turns(game.pk, game.version, limit=1)
    assert played == 1 and game.seat_to_move == 1
    played, game = autoplay.play_bot_turns(game.pk, game.version, limit=10)
    assert played == 1 and game.seat_to_move == 2  # the person's turn
    assert autoplay.play_bot_turns(game.pk, game.version, limit=10)[0] == 0
