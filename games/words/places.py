"""Names in words for every crossing point and line of a board, and reading them back.

A point is its city or its steps from the nearest city ("2 east and 1 south-east of
Denver"): on a hexagonal grid every such name is unique. A line is its two ends. Names
are worded in the active language and read back forgivingly in any language, since
players type them into email replies.
"""

from __future__ import annotations

import math
import re
import unicodedata
from functools import cache

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext, npgettext, pgettext, pgettext_lazy

from games import rules
from games.words.city_names import city_name

# In order round the compass, as (column, row) steps: see games.pages.drawing.xy.
DIRECTIONS = (
    ((1, 0), pgettext_lazy("direction", "east")),
    ((1, 1), pgettext_lazy("direction", "south-east")),
    ((0, 1), pgettext_lazy("direction", "south-west")),
    ((-1, 0), pgettext_lazy("direction", "west")),
    ((-1, -1), pgettext_lazy("direction", "north-west")),
    ((0, -1), pgettext_lazy("direction", "north-east")),
)
# Short forms, compared without accents ("südöstlich" is "sudostlich").
DIRECTION_WORDS = {
    "e": (1, 0),
    "east": (1, 0),
    "o": (1, 0),
    "ost": (1, 0),
    "osten": (1, 0),
    "w": (-1, 0),
    "west": (-1, 0),
    "westen": (-1, 0),
    "se": (1, 1),
    "southeast": (1, 1),
    "so": (1, 1),
    "sudost": (1, 1),
    "sudosten": (1, 1),
    "sw": (0, 1),
    "southwest": (0, 1),
    "sudwest": (0, 1),
    "sudwesten": (0, 1),
    "ne": (0, -1),
    "northeast": (0, -1),
    "no": (0, -1),
    "nordost": (0, -1),
    "nordosten": (0, -1),
    "nw": (-1, -1),
    "northwest": (-1, -1),
    "nordwest": (-1, -1),
    "nordwesten": (-1, -1),
}
# The words a line's two ends may be joined by, in any language, besides dashes.
LINE_WORDS = ("to", "bis", "nach")
# The words of "2 east and 1 south-east of Denver", in any language.
AND_WORDS = ("and", "und")
OF_WORDS = ("of", "von")


def direction_names() -> dict[str, str]:
    """Each direction's name in the active language, by its step "dc,dr"."""
    return {f"{dc},{dr}": str(name) for (dc, dr), name in DIRECTIONS}


def _direction_words() -> dict[str, tuple[int, int]]:
    """Every word for a direction in every language, by its key."""
    words = dict(DIRECTION_WORDS)
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            for step, name in DIRECTIONS:
                words[_key(str(name))] = step
    return words


class UnknownPlace(ValueError):
    """A name that names no point or line of the board; the message says why."""


def _offsets(dc: int, dr: int) -> list[tuple[int, int]]:
    """(dc, dr) as steps in at most two neighbouring directions, the larger first."""
    for i, ((c1, r1), _name) in enumerate(DIRECTIONS):
        (c2, r2), _name2 = DIRECTIONS[(i + 1) % 6]
        det = c1 * r2 - c2 * r1
        a = (dc * r2 - c2 * dr) / det
        b = (c1 * dr - dc * r1) / det
        if a > 0 and b >= 0 and a == int(a) and b == int(b):
            parts = [(int(a), i), (int(b), (i + 1) % 6)]
            parts = [part for part in parts if part[0]]
            return sorted(parts, key=lambda part: -part[0])
    raise AssertionError(f"no steps for {(dc, dr)}")


def _grid_distance(a: rules.Point, b: rules.Point) -> int:
    return sum(count for count, _ in _offsets(b[0] - a[0], b[1] - a[1])) if a != b else 0


def _xy(point: rules.Point) -> tuple[float, float]:
    col, row = point
    return (col - row / 2, row * math.sqrt(3) / 2)


@cache
def _nearest(board: rules.Board) -> tuple[tuple[str, list[tuple[int, int]]] | str, ...]:
    """Per point: its city's canonical name, or (the nearest city, the steps to it)."""
    found = []
    for index, point in enumerate(board.points):
        city = board.city_at.get(index)
        if city is not None:
            found.append(city.name)
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
        found.append(
            (nearest.name, _offsets(point[0] - nearest.point[0], point[1] - nearest.point[1]))
        )
    return tuple(found)


def point_names(board: rules.Board) -> tuple[str, ...]:
    """The name of each point of ``board`` in the active language, by point index."""
    return _point_names(board, translation.get_language())


@cache
def _point_names(board: rules.Board, language: str | None) -> tuple[str, ...]:
    with translation.override(language):
        names = []
        for found in _nearest(board):
            if isinstance(found, str):
                names.append(city_name(found))
                continue
            city, steps = found
            words = [
                # Translators: "2 east" in "2 east and 1 south-east of Denver"; German
                # says the steps ("2 Schritte östlich"): a reader counts them on the board.
                npgettext("steps", "%(count)s %(direction)s", "%(count)s %(direction)s", count)
                % {"count": count, "direction": DIRECTIONS[direction][1]}
                for count, direction in steps
            ]
            if len(words) == 2:
                # Translators: "2 east and 1 south-east" in "... of Denver".
                words = [
                    pgettext("steps", "%(first)s and %(second)s")
                    % dict(zip(("first", "second"), words, strict=True))
                ]
            names.append(
                pgettext("steps", "%(steps)s of %(city)s")
                % {"steps": words[0], "city": city_name(city)}
            )
        return tuple(names)


def point_name(board: rules.Board, index: int) -> str:
    """The name of point ``index``: its city, or its steps from the nearest city."""
    return point_names(board)[index]


def line_name(board: rules.Board, line_id: int) -> str:
    """The name of line ``line_id``: its two ends."""
    a, b, _cost = board.lines[line_id]
    # Translators: a line by its two ends, "Denver to 1 east of Denver".
    return pgettext("line", "%(one)s to %(other)s") % {
        "one": point_name(board, a),
        "other": point_name(board, b),
    }


def line_label(board: rules.Board, line_id: int) -> str:
    """A line's name with what it costs, for lists to choose from."""
    return _line_labels(board, translation.get_language())[line_id]


@cache
def _line_labels(board: rules.Board, language: str | None) -> tuple[str, ...]:
    # A move form lists hundreds of lines.
    with translation.override(language):
        double = gettext("%(line)s (double line, costs 2)")
        single = gettext("%(line)s (costs 1)")
        return tuple(
            (double if cost == 2 else single) % {"line": line_name(board, line_id)}
            for line_id, (_a, _b, cost) in enumerate(board.lines)
        )


def _key(text: str) -> str:
    """Text as names are compared: no accents, lower case, single spaces."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    return " ".join(text.lower().replace("–", "-").split())


@cache
def _readable(
    board: rules.Board,
) -> tuple[dict[str, int], dict[str, int], dict[str, tuple[int, int]]]:
    """Every name of a point or city, and every direction word, in every language."""
    names: dict[str, int] = {}
    cities: dict[str, int] = {}
    for language, _name in settings.LANGUAGES:
        for i, name in enumerate(_point_names(board, language)):
            names.setdefault(_key(name), i)
            if i in board.city_at:
                cities.setdefault(_key(name), i)
    return names, cities, _direction_words()


_AND = "|".join(AND_WORDS)
_OF = "|".join(OF_WORDS)
# "2 steps east", "2 Schritte östlich": the word for steps may stand after the count.
_STEP = r"(?:(?:steps?|schritte?)\s+)?"
STEPS = re.compile(
    rf"^(\d+)\s+{_STEP}([a-z-]+)(?:\s+(?:{_AND})\s+(\d+)\s+{_STEP}([a-z-]+))?\s+(?:{_OF})\s+(.+)$"
)
COORDINATES = re.compile(r"^\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)$")


def point_named(board: rules.Board, text: str) -> int:
    """The index of the point ``text`` names; raises UnknownPlace saying why not."""
    names, cities, directions = _readable(board)
    key = _key(text)
    found = names.get(key)
    if found is not None:
        return found
    title = board.title
    if match := COORDINATES.match(key):
        point = (int(match[1]), int(match[2]))
        if point in board.point_index:
            return board.point_index[point]
        raise UnknownPlace(
            gettext("There is no point %(point)s on the %(board)s board.")
            % {"point": text.strip(), "board": title}
        )
    match = STEPS.match(key)
    if match is None:
        raise UnknownPlace(
            gettext(
                '"%(text)s" is not a city of the %(board)s board, nor steps from one '
                '(such as "%(example)s").'
            )
            % {"text": text.strip(), "board": title, "example": example_point(board)}
        )
    city = cities.get(match[5])
    if city is None:
        raise UnknownPlace(
            gettext('"%(city)s" is not a city of the %(board)s board.')
            % {"city": match[5], "board": title}
        )
    col, row = board.points[city]
    for count, word in ((match[1], match[2]), (match[3], match[4])):
        if count is None:
            continue
        step = directions.get(word)
        if step is None:
            raise UnknownPlace(
                gettext('"%(word)s" is not a direction (%(directions)s).')
                % {"word": word, "directions": ", ".join(direction_names().values())}
            )
        col, row = col + int(count) * step[0], row + int(count) * step[1]
    if (col, row) not in board.point_index:
        raise UnknownPlace(
            gettext('"%(text)s" is off the %(board)s board.')
            % {"text": text.strip(), "board": title}
        )
    return board.point_index[(col, row)]


def example_point(board: rules.Board) -> str:
    """A name of a point by steps from a city, in the active language, to show how."""
    return next(name for i, name in enumerate(point_names(board)) if i not in board.city_at)


def example_line(board: rules.Board) -> str:
    """A name of a line of ``board``, in the active language, to show how to name one."""
    return line_name(board, 0)


ENDS = re.compile(rf"\s+(?:{'|'.join(LINE_WORDS)})\s+|\s+-\s+|\s*–\s*", re.IGNORECASE)
NOTE = re.compile(r"\s*\([^()]*[^\W\d_][^()]*\)\s*$")


def looks_like_a_line(text: str) -> bool:
    """Whether ``text`` names two ends (a line), not one point."""
    return len(ENDS.split(NOTE.sub("", text.strip()))) > 1


def line_named(board: rules.Board, text: str) -> int:
    """The id of the line ``text`` names (ends either way round); raises UnknownPlace."""
    bare = NOTE.sub("", text.strip())
    ends = ENDS.split(bare)
    if len(ends) != 2 or not all(end.strip() for end in ends):
        raise UnknownPlace(
            gettext('"%(text)s" is not a line: name its two ends, such as "%(example)s".')
            % {"text": text.strip(), "example": example_line(board)}
        )
    a, b = (point_named(board, end) for end in ends)
    line = board.line_index.get((a, b))
    if line is None:
        raise UnknownPlace(
            gettext(
                "%(one)s and %(other)s are not neighbours: a line joins two points next to "
                "each other."
            )
            % {"one": point_name(board, a), "other": point_name(board, b)}
        )
    return line


@cache
def _place_words(board: rules.Board) -> tuple[frozenset[str], tuple[str, ...]]:
    """Every word that may be part of a place name, and the cities' names (as compared)."""
    names, cities, directions = _readable(board)
    words = {word for name in names for word in re.findall(r"\w+", name)}
    words |= set(directions) | set(LINE_WORDS) | set(AND_WORDS) | set(OF_WORDS)
    words |= {word for name in directions for word in re.findall(r"\w+", name)}
    return frozenset(words), tuple(cities)


def only_place_words(board: rules.Board, text: str) -> bool:
    """Whether ``text`` is only place names with a city: a move without its keyword."""
    words, cities = _place_words(board)
    key = _key(text)
    found = re.findall(r"\w+", key)
    if not found or not all(word in words or word.isdigit() for word in found):
        return False
    padded = " " + " ".join(found) + " "
    return any(" " + " ".join(re.findall(r"\w+", city)) + " " in padded for city in cities)
