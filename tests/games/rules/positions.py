"""Helpers that set up positions for the rules tests, through the engine's own events."""

from __future__ import annotations

from collections.abc import Sequence

from games import rules
from games.rules.graph import cheapest_paths
from games.rules.state import BUILDING, GameState, Track

# Hands without dashed cities, so that they fit games of any size.
TA_HAND_A = ["Los Angeles", "Dallas", "St. Louis", "Cincinnati", "Washington"]
TA_HAND_B = ["Portland", "Helena", "Salt Lake City", "Phoenix", "New York"]
TA_HAND_C = ["Sacramento", "Minneapolis", "Omaha", "El Paso", "Charleston"]


def new_round(
    hands: Sequence[Sequence[str]],
    board: str = "transamerica",
    options: rules.Options | None = None,
    starts: Sequence[tuple[int, int]] | None = None,
) -> GameState:
    """A game dealt ``hands`` in round 1; with ``starts``, every marker is placed."""
    state = rules.replay([rules.game_created(board, len(hands), options)])
    state = rules.apply(state, rules.round_started(state, hands))
    for point in starts or ():
        state = play(state, state.seat_to_move, rules.PlaceStart(point))
    return state


def play(state: GameState, seat: int, move: rules.Move) -> GameState:
    """Decide ``move`` and apply the events it causes."""
    for event in rules.decide(state, seat, move):
        state = rules.apply(state, event)
    return state


def build(state: GameState, seat: int, *lines, exclusive=()) -> GameState:
    return play(state, seat, rules.Build(tuple(lines), frozenset(exclusive)))


def with_track(state: GameState, lines, seat: int = 0, exclusive: bool = False) -> GameState:
    """A copy of a building position with ``lines`` already built by ``seat``.

    For edge cases that would take dozens of turns to reach through play.
    """
    assert state.phase == BUILDING
    state = state.copy()
    for line in lines:
        line_id = state.board.line_id(line)
        assert line_id is not None and line_id not in state.built, line
        state.built[line_id] = Track(seat, exclusive)
        if not exclusive:
            state.supply_left -= 1
    return state


def cheapest_path(state: GameState, a, b) -> list[rules.Line]:
    """The lines of a cheapest path between two points (or city names) on ``state``."""
    board = state.board
    a = board.city_by_name[a].point if isinstance(a, str) else a
    b = board.city_by_name[b].point if isinstance(b, str) else b
    source, target = board.point_index[a], board.point_index[b]
    _dist, via = cheapest_paths(board, state.built, 0, [source])
    lines = []
    point = target
    while point != source:
        a, b, _cost = board.lines[via[point]]
        before = a if b == point else b
        lines.append((board.points[before], board.points[point]))
        point = before
    return lines[::-1]


def hand_tree(state: GameState, hand: Sequence[str]) -> list[rules.Line]:
    """Lines joining the cities of ``hand``: cheapest paths from the first to the others."""
    lines: list[rules.Line] = []
    seen = set()
    for city in hand[1:]:
        for line in cheapest_path(state, hand[0], city):
            key = frozenset(line)
            if key not in seen:
                seen.add(key)
                lines.append(line)
    return lines
