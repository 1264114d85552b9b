"""Every point and line of both boards has a name in words, unique, and read back."""

import pytest
from django.utils import translation

from games import rules
from games.words import places


@pytest.fixture(params=rules.BOARD_NAMES)
def board(request):
    return rules.get_board(request.param)


def test_every_point_has_its_own_name_and_it_reads_back(board):
    names = places.point_names(board)
    assert len(set(names)) == len(board.points)
    for index, name in enumerate(names):
        assert places.point_named(board, name) == index
        assert places.point_named(board, f"  {name.upper()} ") == index


def test_every_line_reads_back_either_way_round(board):
    for line in range(len(board.lines)):
        name = places.line_name(board, line)
        assert places.line_named(board, name) == line
        a, b = name.split(" to ")
        assert places.line_named(board, f"{b} - {a}") == line
        assert places.line_named(board, places.line_label(board, line)) == line


def test_a_point_off_a_city_is_named_by_steps_from_a_nearest_city(board):
    def steps(a, b):  # grid distance on the hexagonal board
        dc, dr = b[0] - a[0], b[1] - a[1]
        return max(abs(dc), abs(dr), abs(dc - dr))

    for index, point in enumerate(board.points):
        if index in board.city_at:
            continue
        name = places.point_name(board, index)
        counts, _, city = name.partition(" of ")
        taken = sum(int(word) for word in counts.split() if word.isdigit())
        nearest = min(steps(c.point, point) for c in board.cities)
        assert taken == steps(board.city_by_name[city].point, point) == nearest, name
    assert any(" and " in name for name in places.point_names(board))


def test_accents_and_case_are_forgiven():
    board = rules.get_board("transamerica")
    assert places.point_named(board, "DÉNVER") == board.city_point("Denver")


@pytest.mark.parametrize(
    "text, why",
    [
        ("Atlantis", "not a city"),
        ("3 upward of Denver", "not a direction"),
        ("40 east of Denver", "off the"),
        ("Denver", "not a line"),
        ("Denver to Boston", "not neighbours"),
    ],
)
def test_a_name_that_names_nothing_says_why(text, why):
    board = rules.get_board("transamerica")
    with pytest.raises(places.UnknownPlace, match=why):
        if " to " in text or text == "Denver":
            places.line_named(board, text)
        else:
            places.point_named(board, text)


def test_names_are_worded_in_the_active_language_and_read_back_in_any():
    board = rules.get_board("transeuropa")
    munich = board.city_point("Munich")
    with translation.override("de"):
        german = places.point_names(board)
        line = next(i for i, (a, b, _) in enumerate(board.lines) if munich in (a, b))
        german_line = places.line_name(board, line)
    english = places.point_names(board)
    assert german[munich] == "München" and english[munich] == "Munich"
    assert len(set(german)) == len(board.points)
    stepped = next(i for i in range(len(german)) if i not in board.city_at)
    assert " von " in german[stepped] and german[stepped] != english[stepped]
    assert " bis " in german_line
    # A German reader may write either language, and the short forms of either.
    for language in ("en", "de"):
        with translation.override(language):
            assert places.point_named(board, german[stepped]) == stepped
            assert places.point_named(board, english[stepped]) == stepped
            assert places.line_named(board, german_line) == line
            assert places.point_named(board, "münchen") == munich


def test_german_short_directions_read_back():
    board = rules.get_board("transamerica")
    denver = board.city_by_name["Denver"].point
    east = board.point_index[(denver[0] + 1, denver[1])]
    north_east = board.point_index[(denver[0], denver[1] - 1)]
    assert places.point_named(board, "1 o von Denver") == east
    assert places.point_named(board, "1 ostlich von Denver") == east
    assert places.point_named(board, "1 nö von Denver") == north_east
    assert places.point_named(board, "1 ne of Denver") == north_east
