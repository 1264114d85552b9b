"""What games do after a commit: a bot's turn is queued, and a broker that is down loses
nothing (issue 13)."""

import logging

import pytest
from django.test import Client

from games.bots import greedy_move
from games.links import seat_path
from games.models import Game
from games.services import SeatSpec, create_game, load_state, start_game
from tests.faults import broker_down
from tests.minute_jobs import run_minute_jobs


def person_then_bot() -> Game:
    players = [
        SeatSpec("Ada", "ada@example.com"),
        SeatSpec("Bot", is_bot=True, bot_level="greedy"),
    ]
    return start_game(create_game("transamerica", None, players))


def move_form(game: Game) -> dict:
    state = load_state(game)
    move = greedy_move(state, state.seat_to_move)
    return {"version": game.version, "point": state.board.point_index[move.point]}


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_move_committed_while_the_broker_is_down_answers_and_the_scan_plays_the_bot(caplog):
    game = person_then_bot()
    ada = game.seats.get(position=0)
    assert game.seat_to_move == 0
    with broker_down(), caplog.at_level(logging.ERROR, logger="games.receivers"):
        response = Client().post(seat_path(ada), move_form(game))
    # The move is in, and the player is told so: no error page for a broker's fault.
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.version == 3 and game.seat_to_move == 1
    assert "the scan will play it" in caplog.text
    # The bot's turn was never queued; it is due at once, and the next scan plays it.
    assert game.deadline is not None
    report = run_minute_jobs(game.deadline)
    assert report["deadlines due"] == 1
    game.refresh_from_db()
    assert game.seat_to_move == 0 and game.version == 4
    assert load_state(game).starts[1] is not None


@pytest.mark.django_db
def test_a_bot_seat_is_due_at_once_even_without_a_time_per_move():
    game = person_then_bot()
    assert game.time_per_move is None and game.deadline is None  # a person is to move
    players = [SeatSpec("Bot", is_bot=True), SeatSpec("Ada", "ada@example.com")]
    game = start_game(create_game("transamerica", None, players))
    assert game.seat_to_move == 0 and game.deadline == game.events.last().created_at
