import random

import pytest

from games import rules
from games.rules.bots.paths import Paths
from games.rules.network import network, reachable
from games.rules.scoring import INFINITY, _spread, cost_graph
from games.rules.state import BUILDING


def building_positions(board: str, seed: int, every: int = 9):
    """Positions met along a game of greedy bots (shared track only), while building."""
    events = rules.simulate(board, 4, random.Random(seed))
    for cut in range(3, len(events), every):
        state = rules.replay(events[:cut])
        if state.phase == BUILDING:
            yield state


@pytest.mark.parametrize("board", rules.BOARD_NAMES)
def test_distances_and_reach_agree_with_the_engine(board):
    checked = 0
    for state in building_positions(board, 3):
        paths = Paths(state.board)
        built = set(state.built)
        for seat in range(state.seat_count):
            reach = network(state, seat)
            assert paths.reach(built, state.start_point(seat)) == reach
            start = [INFINITY] * len(state.board.points)
            for point in reach:
                start[point] = 0
            expected = _spread(start, cost_graph(state, seat), 4 * len(start))
            assert paths.distances_from_network(built, state.start_point(seat)) == expected
            checked += 1
    assert checked > 20


@pytest.mark.parametrize("board", rules.BOARD_NAMES)
def test_the_first_line_towards_a_city_is_legal_and_on_a_cheapest_way(board):
    checked = 0
    for state in building_positions(board, 5):
        paths = Paths(state.board)
        built = set(state.built)
        for seat in range(state.seat_count):
            start = state.start_point(seat)
            cities = set(state.terminals(seat))
            line = paths.first_line_towards(built, start, cities)
            reach = reachable(state, seat, [start])
            if cities <= reach:
                assert line is None
                continue
            a, b, cost = state.board.lines[line]
            assert line not in built and (a in reach or b in reach)
            before = paths.distances_from_network(built, start)
            after = paths.distances_from_network(built | {line}, start)
            nearest = min(before[c] for c in cities - reach)
            assert min(after[c] for c in cities - reach) == nearest - cost
            checked += 1
    assert checked > 20
