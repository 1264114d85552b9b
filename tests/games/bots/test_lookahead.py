"""What the what-ifs keep up to date: the networks, as lines are built."""

import random

from games import rules
from games.bots.lookahead import Components
from tests.games.bots.positions import one_round_of_greedy_play


def positions():
    for seed in (8, 9):
        yield from one_round_of_greedy_play(seed)[::4]


def test_the_networks_kept_as_lines_are_built_are_those_a_search_finds():
    rng = random.Random(5)
    for state in positions():
        board = state.board
        built = dict(state.built)
        kept = {seat: Components(board, built, seat) for seat in [None, *range(state.seat_count)]}
        free = [line for line in range(len(board.lines)) if line not in built]
        for line in rng.sample(free, 25):
            built[line] = rules.Track(rng.randrange(state.seat_count), False)
            for components in kept.values():
                components.join(line)
            for seat, components in kept.items():
                for point in rng.sample(range(len(board.points)), 5):
                    assert components.of(point) == rules.reach(board, built, seat, [point])
