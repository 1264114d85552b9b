"""games.pages.board_page: what the board's script is given to offer only legal picks."""

import json
import re

import pytest

from games import rules
from games.links import seat_path
from games.pages.drawing import seat_colour
from games.services import load_state
from tests.conftest import play_turn
from tests.factories import GameFactory, second_round_events, simulated_game

pytestmark = pytest.mark.django_db

# Seed 2's bot game, 15 events in: seat 1 may build line 269 after line 365 only because
# 365 joins its network to track that reaches 269 (neither end of 269 is on its network
# or on 365).
SEED, UNTIL, SEAT, FIRST, SECOND = 2, 15, 1, 365, 269


def pick_data(client, seat) -> dict:
    page = client.get(seat_path(seat)).content.decode()
    found = re.search(r'<script id="pick-data" type="application/json">(.*?)</script>', page)
    return json.loads(found.group(1))


def test_the_script_is_given_exactly_the_second_lines_after_each_first(client):
    game = simulated_game(seed=SEED, until=UNTIL)
    state = load_state(game)
    assert state.seat_to_move == SEAT
    data = pick_data(client, game.seats.get(position=SEAT))
    a, b, _cost = state.board.lines[SECOND]
    first_ends = set(state.board.lines[FIRST][:2])
    assert not {a, b} & (set(rules.network(state, SEAT)) | first_ends)  # the case in point
    assert str(SECOND) in data["after"][str(FIRST)]
    for first in rules.legal_line_ids(state, SEAT):
        expected = [str(line) for line in rules.legal_second_line_ids(state, SEAT, first, False)]
        assert data["after"].get(str(first), []) == expected
        assert all(line in data["lines"] for line in expected)
    assert data["after_coloured"] is None  # no coloured track in this game


def test_with_coloured_track_the_second_lines_depend_on_how_the_first_is_built(client):
    game = GameFactory(options={"exclusive_tracks": 3})
    for _ in range(5):  # start markers, then two turns of track
        game = play_turn(game)
    state = load_state(game)
    seat = game.seats.get(position=state.seat_to_move)
    data = pick_data(client, seat)
    for first in rules.legal_line_ids(state, seat.position):
        for coloured, table in ((False, data["after"]), (True, data["after_coloured"])):
            expected = rules.legal_second_line_ids(state, seat.position, first, coloured)
            assert table.get(str(first), []) == [str(line) for line in expected]


def test_the_ended_rounds_table_is_the_key_to_its_drawing(client):
    game = simulated_game(until=second_round_events(moves=0))  # round 1 just scored
    seat = game.seats.get(position=load_state(game).seat_to_move)
    page = client.get(seat_path(seat)).content.decode()
    summary = page[page.index('id="round-summary"') : page.index("</details>")]
    for position, name in enumerate(game.seat_names()):
        marker = (
            f'<polygon points="10,1 19,10 10,19 1,10" fill="{seat_colour(position)}"/>'
            f'<text x="10" y="14">{position + 1}</text></svg> {name}</td>'
        )
        assert marker in summary
