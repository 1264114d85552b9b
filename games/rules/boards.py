"""The two published boards, loaded once from the data files shipped in ``boards/``."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from .moves import Line, Point

BOARD_NAMES = ("transamerica", "transeuropa")
COLOURS = ("red", "orange", "yellow", "green", "blue")
DATA_DIR = Path(__file__).with_name("boards")

# Only TransAmerica's rules move the game-end mark (after the second round's scoring).
_BARRIER_MOVES_AFTER_ROUND = {"transamerica": 2, "transeuropa": None}


@dataclass(frozen=True)
class City:
    name: str
    colour: str
    point: Point
    dashed: bool
    name_de: str | None = None


@dataclass(frozen=True, eq=False, repr=False)
class Board:
    """Crossing points, lines and cities of one board, numbered for the engine's inner loops."""

    name: str
    title: str
    points: tuple[Point, ...]
    lines: tuple[tuple[int, int, int], ...]  # (point index, point index, cost)
    cities: tuple[City, ...]
    tracks_in_supply: int
    starting_score: int
    game_ends_at_score: int
    barrier_moves_after_round: int | None
    point_index: dict[Point, int] = field(init=False, repr=False)
    line_index: dict[tuple[int, int], int] = field(init=False, repr=False)
    point_lines: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    city_by_name: dict[str, City] = field(init=False, repr=False)
    city_at: dict[int, City] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        point_index = {point: i for i, point in enumerate(self.points)}
        line_index: dict[tuple[int, int], int] = {}
        point_lines: list[list[int]] = [[] for _ in self.points]
        for i, (a, b, _cost) in enumerate(self.lines):
            line_index[(a, b)] = line_index[(b, a)] = i
            point_lines[a].append(i)
            point_lines[b].append(i)
        city_at = {point_index[c.point]: c for c in self.cities}
        # A frozen dataclass: derived lookups are set once here.
        object.__setattr__(self, "point_index", point_index)
        object.__setattr__(self, "line_index", line_index)
        object.__setattr__(self, "point_lines", tuple(tuple(ls) for ls in point_lines))
        object.__setattr__(self, "city_by_name", {c.name: c for c in self.cities})
        object.__setattr__(self, "city_at", city_at)

    def __repr__(self) -> str:
        return f"<Board {self.name}>"

    def line_id(self, line: Line) -> int | None:
        """The number of the line between two points, or None if they are not neighbours."""
        a = self.point_index.get(line[0])
        b = self.point_index.get(line[1])
        if a is None or b is None:
            return None
        return self.line_index.get((a, b))

    def line_points(self, line_id: int) -> Line:
        a, b, _cost = self.lines[line_id]
        return (self.points[a], self.points[b])

    def city_point(self, name: str) -> int:
        return self.point_index[self.city_by_name[name].point]

    def cities_of(self, colour: str, seat_count: int) -> list[City]:
        """The cities of one colour in play: dashed ones are left out with 2 or 3 players."""
        return [c for c in self.cities if c.colour == colour and (seat_count > 3 or not c.dashed)]


def _load(name: str) -> Board:
    data = json.loads((DATA_DIR / f"{name}.json").read_text(encoding="utf-8"))
    points = tuple(tuple(p) for p in data["points"])
    index = {p: i for i, p in enumerate(points)}
    lines = tuple((index[tuple(a)], index[tuple(b)], cost) for a, b, cost in data["lines"])
    cities = tuple(
        City(
            name=c["name"],
            colour=c["colour"],
            point=tuple(c["point"]),
            dashed=c["dashed"],
            name_de=c.get("name_de"),
        )
        for c in data["cities"]
    )
    return Board(
        name=data["board"],
        title=data["title"],
        points=points,
        lines=lines,
        cities=cities,
        tracks_in_supply=data["tracks_in_supply"],
        starting_score=data["starting_score"],
        game_ends_at_score=data["game_ends_at_score"],
        barrier_moves_after_round=_BARRIER_MOVES_AFTER_ROUND[name],
    )


@cache
def get_board(name: str) -> Board:
    """The board called ``name``; raises ValueError for an unknown board."""
    if name not in BOARD_NAMES:
        raise ValueError(f"unknown board {name!r}: choose one of {', '.join(BOARD_NAMES)}")
    return _load(name)
