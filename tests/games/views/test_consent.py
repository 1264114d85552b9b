"""Consent at the table from the board page: POST forms through the seat's link."""

from datetime import timedelta

import pytest

from games import rules
from games.bots import greedy_move
from games.links import seat_path
from games.models import Game, Seat
from games.services import SeatSpec, create_game, load_state, start_game, submit_move

pytestmark = pytest.mark.django_db

PEOPLE = [SeatSpec("Ada", "ada@example.com"), SeatSpec("Bo", "bo@example.com")]


@pytest.fixture
def game() -> Game:
    options = rules.Options(take_backs=True)
    return start_game(create_game("transamerica", options, PEOPLE, None, timedelta(days=2)))


def seat(game: Game, position: int) -> Seat:
    return Seat.objects.get(game=game, position=position)


def test_the_board_page_offers_a_take_back_to_the_last_mover_only(client, game):
    first = game.seat_to_move
    state = load_state(game)
    submit_move(game, seat(game, first), greedy_move(state, first), game.version)
    mine = client.get(seat_path(seat(game, first))).content.decode()
    theirs = client.get(seat_path(seat(game, 1 - first))).content.decode()
    assert "Take back my last turn" in mine and "Take back my last turn" not in theirs
    assert "Nudge the player to move" in mine and "24 more hours" in mine
    assert "Agree to end the game now" in theirs


def test_taking_back_by_the_board_page(client, game):
    first = game.seat_to_move
    state = load_state(game)
    submit_move(game, seat(game, first), greedy_move(state, first), game.version)
    path = seat_path(seat(game, first))
    answer = client.post(path + "table/take-back/", follow=True)
    assert "Your last turn is taken back" in answer.content.decode()
    game.refresh_from_db()
    assert game.seat_to_move == first
    again = client.post(path + "table/take-back/", follow=True)
    assert "You have no turn to take back." in again.content.decode()
    assert game.events.filter(type=rules.TURN_TAKEN_BACK).count() == 1


def test_a_refusal_on_the_board_page_says_why_and_changes_nothing(client, game):
    to_move = seat(game, game.seat_to_move)
    version = game.version
    answer = client.post(seat_path(to_move) + "table/nudge/", follow=True)
    assert "It is your own turn." in answer.content.decode()
    assert Game.objects.get(pk=game.pk).version == version


def test_every_person_agreeing_on_the_board_page_ends_the_game(client, game):
    client.post(seat_path(seat(game, 0)) + "table/end/")
    answer = client.post(seat_path(seat(game, 1)) + "table/end/", follow=True)
    assert "Everyone agreed: the game is over." in answer.content.decode()
    assert Game.objects.get(pk=game.pk).status == Game.Status.FINISHED


def test_a_get_changes_nothing(client, game):
    answer = client.get(seat_path(seat(game, 0)) + "table/end/")
    assert answer.status_code == 405
    assert not game.events.filter(type=rules.END_AGREED).exists()
