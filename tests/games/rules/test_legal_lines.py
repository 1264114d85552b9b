"""The engine lists the legal lines: first lines of a turn, and second lines after a first."""

import random

import pytest

from games import rules
from games.bots import simulate

from .positions import TA_HAND_A, TA_HAND_B, build, hand_tree, new_round, with_track


def ids(state, *lines) -> list[int]:
    return sorted(state.board.line_id(line) for line in lines)


def legal_by_decide(state, seat, first: int, coloured: bool) -> list[int]:
    """Every line that ``decide`` accepts after ``first`` in one turn: the rules' own answer."""
    board = state.board
    exclusive = frozenset([0]) if coloured else frozenset()
    found = []
    for second in range(len(board.lines)):
        move = rules.Build((board.line_points(first), board.line_points(second)), exclusive)
        try:
            rules.decide(state, seat, move)
        except rules.IllegalMove:
            continue
        found.append(second)
    return found


def test_first_lines_are_the_free_lines_touching_the_network():
    state = new_round([TA_HAND_A, TA_HAND_B], starts=[(10, 6), (3, 1)])
    around = [(9, 5), (10, 5), (9, 6), (11, 6), (10, 7), (11, 7)]
    assert rules.legal_line_ids(state, 0) == ids(state, *(((10, 6), p) for p in around))
    assert rules.legal_lines(state, 0) == [
        state.board.line_points(i) for i in rules.legal_line_ids(state, 0)
    ]


def test_a_second_line_may_reach_out_from_a_network_the_first_line_joins():
    state = new_round([TA_HAND_A, TA_HAND_B], starts=[(10, 6), (12, 6)])
    state = build(state, 0, ((10, 6), (11, 6)))
    state = build(state, 1, ((12, 6), (13, 6)))
    first = state.board.line_id(((11, 6), (12, 6)))  # joins seat 1's network
    # Before the first line, (13,6)-(13,7) is seat 1's alone; after it, seat 0's too.
    beyond = state.board.line_id(((13, 6), (13, 7)))
    assert beyond not in rules.legal_line_ids(state, 0)
    seconds = rules.legal_second_line_ids(state, 0, first)
    assert beyond in seconds
    assert seconds == legal_by_decide(state, 0, first, coloured=False)


def test_no_second_line_after_a_double_line_or_one_that_joins_the_cities():
    state = new_round([TA_HAND_A, TA_HAND_B], starts=[(10, 6), (3, 1)])
    state = build(state, 0, ((10, 6), (11, 6)))
    board = state.board
    double = board.line_id(((3, 1), (4, 1)))  # Helena, over the mountains
    assert board.lines[double][2] == 2 and double in rules.legal_line_ids(state, 1)
    assert rules.legal_second_line_ids(state, 1, double) == []
    assert legal_by_decide(state, 1, double, coloured=False) == []
    city = board.city_by_name
    state = new_round(
        [TA_HAND_A, TA_HAND_B], starts=[city["Los Angeles"].point, city["Portland"].point]
    )
    tree = hand_tree(state, TA_HAND_A)
    state = with_track(state, tree[:-1])
    last = board.line_id(tree[-1])
    assert rules.legal_second_line_ids(state, 0, last) == []
    assert legal_by_decide(state, 0, last, coloured=False) == []


def test_the_last_track_of_the_supply_stands_alone_unless_it_is_coloured():
    options = rules.Options(exclusive_tracks=3)
    state = new_round([TA_HAND_A, TA_HAND_B], options=options, starts=[(10, 6), (3, 1)])
    state.supply_left = 1
    first = state.board.line_id(((10, 6), (11, 6)))
    assert rules.legal_second_line_ids(state, 0, first, coloured=False) == []
    coloured = rules.legal_second_line_ids(state, 0, first, coloured=True)
    assert coloured == legal_by_decide(state, 0, first, coloured=True) != []
    assert rules.legal_second_line_ids(state, 0, first) == coloured  # either way


def test_a_line_that_is_not_a_legal_first_line_has_no_second():
    state = new_round([TA_HAND_A, TA_HAND_B], starts=[(10, 6), (3, 1)])
    far = state.board.line_id(((3, 1), (4, 1)))
    assert rules.legal_second_line_ids(state, 0, far) == []
    assert rules.legal_second_line_ids(state, 1, far) == []  # not seat 1's turn


@pytest.mark.parametrize("board", rules.BOARD_NAMES)
def test_second_lines_are_exactly_what_decide_accepts(board):
    """Positions of a game with coloured track, a few first lines each: the engine's list
    is the set of second lines that ``decide`` takes, line for line over the whole board."""
    options = rules.Options(exclusive_tracks=3)
    events = simulate(board, 3, random.Random(2), options)
    rng = random.Random(5)
    checked = 0
    for cut in (12, 30, 55):
        state = rules.replay(events[:cut])
        if state.phase != rules.BUILDING:
            continue
        seat = state.seat_to_move
        for first in rng.sample(rules.legal_line_ids(state, seat), 2):
            for coloured in (False, True):
                if coloured and not rules.may_colour(state, seat, state.board.line_points(first)):
                    continue
                expected = legal_by_decide(state, seat, first, coloured)
                assert rules.legal_second_line_ids(state, seat, first, coloured) == expected
                checked += 1
    assert checked >= 6
