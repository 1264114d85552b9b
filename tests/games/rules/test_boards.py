from collections import Counter

import pytest

from games import rules
from games.rules.boards import COLOURS

EXPECTED = {
    # board: (points, lines, double lines, supply)
    "transamerica": (188, 509, 109, 84),
    "transeuropa": (210, 577, 153, 83),
}


@pytest.mark.parametrize("name", rules.BOARD_NAMES)
def test_board_counts(name):
    board = rules.get_board(name)
    points, lines, doubles, supply = EXPECTED[name]
    assert len(board.points) == points
    assert len(board.lines) == lines
    assert sum(1 for _a, _b, cost in board.lines if cost == 2) == doubles
    assert {cost for _a, _b, cost in board.lines} == {1, 2}
    assert board.tracks_in_supply == supply
    assert board.starting_score == 13


@pytest.mark.parametrize("name", rules.BOARD_NAMES)
def test_seven_cities_per_colour_two_of_them_dashed(name):
    board = rules.get_board(name)
    assert Counter(c.colour for c in board.cities) == {colour: 7 for colour in COLOURS}
    assert Counter(c.colour for c in board.cities if c.dashed) == {colour: 2 for colour in COLOURS}
    assert len({c.name for c in board.cities}) == 35
    assert len({c.point for c in board.cities}) == 35
    assert all(c.point in board.point_index for c in board.cities)


@pytest.mark.parametrize("name", rules.BOARD_NAMES)
def test_lines_join_neighbouring_points_once(name):
    board = rules.get_board(name)
    neighbours = {(1, 0), (-1, 0), (0, 1), (1, 1), (0, -1), (-1, -1)}
    seen = set()
    for a, b, _cost in board.lines:
        (ca, ra), (cb, rb) = board.points[a], board.points[b]
        assert (cb - ca, rb - ra) in neighbours
        assert frozenset((a, b)) not in seen
        seen.add(frozenset((a, b)))


def test_line_lookup_works_in_either_order():
    board = rules.get_board("transamerica")
    line = board.line_id(((17, 4), (17, 5)))
    assert line is not None
    assert board.line_id(((17, 5), (17, 4))) == line
    assert board.line_id(((17, 4), (17, 6))) is None  # not neighbours
    assert board.line_id(((99, 99), (17, 4))) is None  # not a point


def test_dashed_cities_are_left_out_with_two_or_three_players():
    board = rules.get_board("transamerica")
    for seats in (2, 3):
        assert all(len(board.cities_of(colour, seats)) == 5 for colour in COLOURS)
        assert not any(c.dashed for colour in COLOURS for c in board.cities_of(colour, seats))
    assert all(len(board.cities_of(colour, 4)) == 7 for colour in COLOURS)


def test_transeuropa_cities_have_german_names():
    board = rules.get_board("transeuropa")
    assert board.city_by_name["Florence"].name_de == "Florenz"


def test_unknown_board_is_refused():
    with pytest.raises(ValueError, match="unknown board"):
        rules.get_board("transatlantis")
