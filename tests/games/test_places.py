"""Every point and line of both boards has a name in words, unique, and read back."""

import pytest

from games import places, rules


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


def test_coordinates_in_a_message_become_names():
    board = rules.get_board("transamerica")
    line = 0
    a, b, _ = board.lines[line]
    (ca, ra), (cb, rb) = board.points[a], board.points[b]
    text = f"line ({ca},{ra})-({cb},{rb}) is taken; ({ca},{ra}) is yours; (99,99) is nowhere"
    said = places.in_words(board, text)
    assert places.line_name(board, line) in said
    assert f"{places.point_name(board, a)} is yours" in said
    assert "(99,99) is nowhere" in said
