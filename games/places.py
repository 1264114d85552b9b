"""Names in words for every crossing point and line of a board, and reading them back.

The one place that words where things are on a board, for lists and error messages on
the board page, the move log, emails and the replies of play by email:

- a city's point by the city: "Denver";
- any other point by the city nearest to it along the lines (the grid distance; nearer
  by eye, then by name, breaks ties) and the steps from that city, in at most two of the
  six directions of the board, the larger first: "2 east and 1 south-east of Denver".
  Every point of the hexagonal grid is one such sum from a given city, so every name is
  unique on its board;
- a line by its two ends, the one first in the board's own order first: "Denver to 1
  east of Denver".

``point_named`` and ``line_named`` read names back, forgiving of case, spacing, "to" or
a dash between a line's ends in either order, a note in brackets after it, and the
directions' short forms ("ne", "northeast").
"""

from __future__ import annotations

import math
import re
import unicodedata
from functools import cache

from games import rules

# The six directions of the grid, in order round the compass (each next to the next), as
# steps of (column, row): see games.board.xy for the geometry.
DIRECTIONS = (
    ((1, 0), "east"),
    ((1, 1), "south-east"),
    ((0, 1), "south-west"),
    ((-1, 0), "west"),
    ((-1, -1), "north-west"),
    ((0, -1), "north-east"),
)
# What a reader may write for each direction.
DIRECTION_WORDS = {
    "east": "east",
    "e": "east",
    "west": "west",
    "w": "west",
    "south-east": "south-east",
    "southeast": "south-east",
    "se": "south-east",
    "south-west": "south-west",
    "southwest": "south-west",
    "sw": "south-west",
    "north-east": "north-east",
    "northeast": "north-east",
    "ne": "north-east",
    "north-west": "north-west",
    "northwest": "north-west",
    "nw": "north-west",
}
STEP = {name: step for step, name in DIRECTIONS}


class UnknownPlace(ValueError):
    """A name that names no point or line of the board; the message says why."""


def _offsets(dc: int, dr: int) -> list[tuple[int, str]]:
    """(dc, dr) as steps in at most two neighbouring directions, the larger first."""
    for i, ((c1, r1), name1) in enumerate(DIRECTIONS):
        (c2, r2), name2 = DIRECTIONS[(i + 1) % 6]
        det = c1 * r2 - c2 * r1
        a = (dc * r2 - c2 * dr) / det
        b = (c1 * dr - dc * r1) / det
        if a > 0 and b >= 0 and a == int(a) and b == int(b):
            parts = [(int(a), name1), (int(b), name2)]
            parts = [part for part in parts if part[0]]
            return sorted(parts, key=lambda part: -part[0])
    raise AssertionError(f"no steps for {(dc, dr)}")


def _grid_distance(a: rules.Point, b: rules.Point) -> int:
    return sum(count for count, _ in _offsets(b[0] - a[0], b[1] - a[1])) if a != b else 0


def _xy(point: rules.Point) -> tuple[float, float]:
    col, row = point
    return (col - row / 2, row * math.sqrt(3) / 2)


@cache
def point_names(board: rules.Board) -> tuple[str, ...]:
    """The name of each point of ``board``, by point index."""
    names = []
    for index, point in enumerate(board.points):
        city = board.city_at.get(index)
        if city is not None:
            names.append(city.name)
            continue
        x, y = _xy(point)
        nearest = min(
            board.cities,
            key=lambda c: (
                _grid_distance(c.point, point),
                (_xy(c.point)[0] - x) ** 2 + (_xy(c.point)[1] - y) ** 2,
                c.name,
            ),
        )
        steps = _offsets(point[0] - nearest.point[0], point[1] - nearest.point[1])
        words = " and ".join(f"{count} {direction}" for count, direction in steps)
        names.append(f"{words} of {nearest.name}")
    return tuple(names)


def point_name(board: rules.Board, index: int) -> str:
    """The name of point ``index``: its city, or its steps from the nearest city."""
    return point_names(board)[index]


def line_name(board: rules.Board, line_id: int) -> str:
    """The name of line ``line_id``: its two ends."""
    a, b, _cost = board.lines[line_id]
    return f"{point_name(board, a)} to {point_name(board, b)}"


def line_label(board: rules.Board, line_id: int) -> str:
    """A line's name with what it costs, for lists to choose from."""
    cost = board.lines[line_id][2]
    return f"{line_name(board, line_id)} ({'double line, costs 2' if cost == 2 else 'costs 1'})"


def _key(text: str) -> str:
    """Text as names are compared: no accents, lower case, single spaces."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    return " ".join(text.lower().replace("–", "-").split())


@cache
def _cities(board: rules.Board) -> dict[str, int]:
    return {_key(name): i for i, name in enumerate(point_names(board)) if i in board.city_at}


@cache
def _names(board: rules.Board) -> dict[str, int]:
    return {_key(name): i for i, name in enumerate(point_names(board))}


STEPS = re.compile(r"^(\d+)\s+([a-z-]+)(?:\s+and\s+(\d+)\s+([a-z-]+))?\s+of\s+(.+)$")
COORDINATES = re.compile(r"^\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)$")


def point_named(board: rules.Board, text: str) -> int:
    """The index of the point ``text`` names; raises UnknownPlace saying why not."""
    key = _key(text)
    found = _names(board).get(key)
    if found is not None:
        return found
    if match := COORDINATES.match(key):
        point = (int(match[1]), int(match[2]))
        if point in board.point_index:
            return board.point_index[point]
        raise UnknownPlace(f"There is no point {text.strip()} on the {board.title} board.")
    match = STEPS.match(key)
    if match is None:
        raise UnknownPlace(
            f'"{text.strip()}" is not a city of the {board.title} board, nor steps from one '
            '(such as "2 east of Denver").'
        )
    city = _cities(board).get(match[5])
    if city is None:
        raise UnknownPlace(f'"{match[5]}" is not a city of the {board.title} board.')
    col, row = board.points[city]
    for count, word in ((match[1], match[2]), (match[3], match[4])):
        if count is None:
            continue
        direction = DIRECTION_WORDS.get(word)
        if direction is None:
            raise UnknownPlace(f'"{word}" is not a direction (east, north-east, ...).')
        dc, dr = STEP[direction]
        col, row = col + int(count) * dc, row + int(count) * dr
    if (col, row) not in board.point_index:
        raise UnknownPlace(f'"{text.strip()}" is off the {board.title} board.')
    return board.point_index[(col, row)]


ENDS = re.compile(r"\s+to\s+|\s+-\s+|\s*–\s*")
NOTE = re.compile(r"\s*\([^()]*[a-z][^()]*\)\s*$")


def looks_like_a_line(text: str) -> bool:
    """Whether ``text`` names two ends (a line), not one point."""
    return len(ENDS.split(NOTE.sub("", text.strip()))) > 1


def line_named(board: rules.Board, text: str) -> int:
    """The id of the line ``text`` names (its two ends, either way round); raises
    UnknownPlace saying why not."""
    bare = NOTE.sub("", text.strip())
    ends = ENDS.split(bare)
    if len(ends) != 2 or not all(end.strip() for end in ends):
        raise UnknownPlace(
            f'"{text.strip()}" is not a line: name its two ends, such as "Denver to 1 east of '
            'Denver".'
        )
    a, b = (point_named(board, end) for end in ends)
    line = board.line_index.get((a, b))
    if line is None:
        raise UnknownPlace(
            f"{point_name(board, a)} and {point_name(board, b)} are not neighbours: a line "
            "joins two points next to each other."
        )
    return line


LINE_IN_COORDINATES = re.compile(r"\((-?\d+),\s*(-?\d+)\)\s*-\s*\((-?\d+),\s*(-?\d+)\)")
POINT_IN_COORDINATES = re.compile(r"\((-?\d+),\s*(-?\d+)\)")


def in_words(board: rules.Board, text: str) -> str:
    """``text`` (such as the engine's explanation of an illegal move) with every line and
    point it gives in coordinates, "(8,6)-(9,7)", named in words instead."""

    def line(match: re.Match) -> str:
        ends = ((int(match[1]), int(match[2])), (int(match[3]), int(match[4])))
        line_id = board.line_id(ends)
        return line_name(board, line_id) if line_id is not None else match[0]

    def point(match: re.Match) -> str:
        index = board.point_index.get((int(match[1]), int(match[2])))
        return point_name(board, index) if index is not None else match[0]

    return POINT_IN_COORDINATES.sub(point, LINE_IN_COORDINATES.sub(line, text))
