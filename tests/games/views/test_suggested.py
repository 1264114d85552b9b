"""games.views.suggested: the one-tap suggestion's page draws the move it offers."""

import re

import pytest
from django.urls import reverse

from games import rules
from games.links import make_token
from games.services import load_state
from games.words import suggestions
from tests.conftest import play_turn
from tests.factories import GameFactory

pytestmark = pytest.mark.django_db


def suggestion_page(client, game, number=1):
    state = load_state(game)
    seat = game.seats.get(position=state.seat_to_move)
    url = reverse("games:suggested", args=[make_token(seat), game.version, number])
    offered = suggestions.suggestions(state, seat.position)[number - 1]
    return client.get(url).content.decode(), offered, seat


def test_a_suggested_start_marker_is_drawn_on_the_board(client):
    game = GameFactory()
    page, offered, seat = suggestion_page(client, game)
    assert isinstance(offered.move, rules.PlaceStart)
    assert load_state(game).starts[seat.position] is None
    # The seat's start marker, drawn and marked, where the suggestion puts it.
    assert len(re.findall(rf'class="start seat-{seat.position} last"', page)) == 1


def test_suggested_lines_are_drawn_and_marked_and_the_game_is_unchanged(client):
    game = GameFactory()
    for _ in range(3):
        game = play_turn(game)
    version = game.version
    page, offered, seat = suggestion_page(client, game)
    assert isinstance(offered.move, rules.Build)
    marked = re.findall(rf'class="track seat-{seat.position} last"', page)
    assert len(marked) == len(offered.move.lines)
    game.refresh_from_db()
    assert game.version == version
