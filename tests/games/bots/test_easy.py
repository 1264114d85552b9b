"""The easy bot: legal, never idle while it can build, one line a turn."""

import random

import pytest

from games import rules
from games.bots import easy_move, greedy_move, simulate
from tests.games.bots.positions import positions

VARIANTS = [rules.Options(), rules.Options(exclusive_tracks=3, cities_must_join_start=True)]


@pytest.mark.parametrize("board", rules.BOARD_NAMES)
@pytest.mark.parametrize("options", VARIANTS)
def test_it_plays_whole_legal_games_and_builds_whenever_it_can(board, options):
    # simulate decides every move with the engine: an illegal one raises.
    events = simulate(board, 3, random.Random(4), options, [easy_move, greedy_move, easy_move])
    assert rules.replay(events).is_over
    checked = 0
    for state in positions(events, every=3):
        seat = state.seat_to_move
        if seat == 1 or state.phase != rules.BUILDING:
            continue
        move = easy_move(state, seat)
        if rules.legal_lines(state, seat):
            assert isinstance(move, rules.Build) and len(move.lines) == 1
        else:
            assert isinstance(move, rules.Pass)
        checked += 1
    assert checked >= 8


def test_it_starts_on_a_city_of_its_hand():
    events = simulate("transeuropa", 2, random.Random(2), None, [easy_move, easy_move])
    state = rules.replay(events[:2])
    move = easy_move(state, state.seat_to_move)
    point = state.board.point_index[move.point]
    assert state.board.city_at[point].name in state.hands[state.seat_to_move]


def test_it_plays_the_same_moves_from_the_same_seed():
    first = simulate("transamerica", 2, random.Random(5), None, [easy_move, greedy_move])
    again = simulate("transamerica", 2, random.Random(5), None, [easy_move, greedy_move])
    assert first == again
