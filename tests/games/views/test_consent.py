"""Consent at the table from the board page: POST forms through the seat's link."""

from datetime import timedelta

import pytest

from games import rules
from games.bots import greedy_move
from games.links import seat_path
from games.models import Game, Seat
from games.services import SeatSpec, create_game, load_state, start_game, submit_move
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PEOPLE = [SeatSpec("Ada", "ada@example.com"), SeatSpec("Bo", "bo@example.com")]
THIRD = SeatSpec("Cy", "cy@example.com")


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


def test_leaving_and_inviting_a_substitute_by_the_board_page(client):
    creator = UserFactory(email="ada@example.com")
    game = start_game(create_game("transamerica", None, PEOPLE + [THIRD], creator))
    leaver = seat(game, 1)
    page = client.get(seat_path(leaver)).content.decode()
    assert "Leave this game" in page
    answer = client.post(seat_path(leaver) + "table/leave/", follow=True)
    assert "You left the game." in answer.content.decode()
    assert client.get(seat_path(leaver)).status_code == 403  # its links died
    creator_page = client.get(seat_path(seat(game, 0))).content.decode()
    assert "Invite a substitute for Bo" in creator_page
    refused = client.post(
        seat_path(seat(game, 0)) + "table/substitute/1/",
        {"name": "Cy", "email": "cy@example.com"},
        follow=True,
    )
    assert "That address already holds a seat in this game." in refused.content.decode()
    answer = client.post(
        seat_path(seat(game, 0)) + "table/substitute/1/",
        {"name": "Di", "email": "di@example.com"},
        follow=True,
    )
    assert "Di is invited to take over the seat." in answer.content.decode()
    assert seat(game, 1).email == "di@example.com"


def test_muting_a_game_stops_its_news_but_not_the_players_turns(client, game):
    from notifications import emails
    from notifications.models import Message

    ada = seat(game, 0)
    page = client.get(seat_path(ada)).content.decode()
    assert "Mute this game but my turns" in page
    client.post(seat_path(ada) + "table/mute/")
    ada.refresh_from_db()
    assert ada.notices_muted
    assert "Hear of everything in this game again" in client.get(seat_path(ada)).content.decode()
    seats = list(game.seats.order_by("position"))
    [news] = emails.bot_took_over(game, seats, seats[1], 99)[:1]
    assert news.status == Message.Status.SUPPRESSED
    turn = emails.your_turn(game, seats[0], 99, "")
    assert turn.status == Message.Status.PENDING
    client.post(seat_path(ada) + "table/mute/")
    ada.refresh_from_db()
    assert not ada.notices_muted


def test_the_board_pages_ids_stay_unique_with_every_form_of_the_table(client):
    import re
    from collections import Counter

    creator = UserFactory(email="ada@example.com")
    game = start_game(create_game("transamerica", None, [*PEOPLE, THIRD], creator))
    client.post(seat_path(seat(game, 1)) + "table/leave/")
    client.post(seat_path(seat(game, 2)) + "table/leave/")
    page = client.get(seat_path(seat(game, 0))).content.decode()
    assert page.count("Invite a substitute for") == 2 and "Give the table this channel" in page
    ids = Counter(re.findall(r'\sid="([^"]+)"', page))
    assert [name for name, count in ids.items() if count > 1] == []
