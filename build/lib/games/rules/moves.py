"""What a player may ask to do on their turn."""

from __future__ import annotations

from dataclasses import dataclass, field

Point = tuple[int, int]
Line = tuple[Point, Point]


def as_point(value) -> Point:
    """Turn ``[col, row]`` (from JSON or a form) into a point, or raise ValueError."""
    try:
        col, row = value
    except (TypeError, ValueError):
        raise ValueError(f"{value!r} is not a point: expected [col, row]") from None
    if isinstance(col, bool) or isinstance(row, bool):
        raise ValueError(f"{value!r} is not a point: expected [col, row]")
    if not isinstance(col, int) or not isinstance(row, int):
        raise ValueError(f"{value!r} is not a point: expected whole numbers")
    return (col, row)


def as_line(value) -> Line:
    """Turn ``[[c, r], [c, r]]`` into a line, or raise ValueError."""
    try:
        a, b = value
    except (TypeError, ValueError):
        raise ValueError(f"{value!r} is not a line: expected two points") from None
    return (as_point(a), as_point(b))


def format_point(point: Point) -> str:
    return f"({point[0]},{point[1]})"


def format_line(line: Line) -> str:
    return f"{format_point(line[0])}-{format_point(line[1])}"


@dataclass(frozen=True)
class PlaceStart:
    """A seat's first turn of a round: its start marker on a free crossing point."""

    point: Point

    def __post_init__(self) -> None:
        object.__setattr__(self, "point", as_point(self.point))


@dataclass(frozen=True)
class Build:
    """One turn of building: one or two lines, in the order placed.

    ``exclusive`` holds the indexes (into ``lines``) of lines built with the seat's
    coloured track, under the exclusive-track variant.
    """

    lines: tuple[Line, ...]
    exclusive: frozenset[int] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        object.__setattr__(self, "lines", tuple(as_line(line) for line in self.lines))
        object.__setattr__(self, "exclusive", frozenset(self.exclusive))


@dataclass(frozen=True)
class Pass:
    """Allowed only when a seat has no legal line at all (a walled-in network)."""


Move = PlaceStart | Build | Pass
