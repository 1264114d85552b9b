"""What a turn does for the seat that builds it, in facts a sentence can say: the city it
heads for (or joins), how far that city is left, and whose track it builds on.

"Heads for" is meant literally: the city whose way from the seat's network the turn
shortens by all it builds (the nearest such city, where several are), so that a turn
said to go toward Chicago does. Only the seat's own cities are named; the others' track
is public.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from games import rules


@dataclass(frozen=True)
class Idea:
    """A move, and what it does for the seat."""

    move: rules.Move
    heads_for: str = ""  # the city (of the seat's hand) the move takes it toward, or joins
    joins: tuple[str, ...] = ()  # the cities it joins to the seat's network
    left: int = 0  # track points still between the network and ``heads_for`` after it
    on_track_of: tuple[int, ...] = ()  # the other seats whose track it builds from
    cost: int = 0  # the track points it builds


def describe(state: rules.GameState, seat: int, lines: Sequence[int], move: rules.Move) -> Idea:
    """What building ``lines`` (line ids, in order) does for ``seat``, as the ``move``."""
    board = state.board
    start = state.start_point(seat)
    cities = [(board.city_point(name), name) for name in state.hands[seat]]
    before_net = rules.reach(board, state.built, seat, [start])
    before = rules.distances(rules.cost_graph(board, state.built, seat), before_net)
    after_built = dict(state.built)
    exclusive = move.exclusive if isinstance(move, rules.Build) else frozenset()
    for i, line in enumerate(lines):
        after_built[line] = rules.Track(seat, i in exclusive)
    after_net = rules.reach(board, after_built, seat, [start])
    after = rules.distances(rules.cost_graph(board, after_built, seat), after_net)
    cost = sum(board.lines[line][2] for line in lines)
    waiting = [(point, name) for point, name in cities if point not in before_net]
    joins = tuple(name for point, name in waiting if point in after_net)
    heads_for, left = "", 0
    if joins:
        heads_for = joins[0]
    else:
        # The city the turn brings closest by all it builds; else by the most; nearest first.
        gains = [
            (
                -(before[point] - after[point] >= cost),
                -(before[point] - after[point]),
                after[point],
                name,
            )
            for point, name in waiting
            if before[point] - after[point] > 0
        ]
        if gains:
            best = min(gains)
            heads_for, left = best[3], best[2]
    # Whose track the turn starts from: where its lines touch the network it had.
    touched = {point for line in lines for point in board.lines[line][:2] if point in before_net}
    others = sorted(
        {
            track.seat
            for point in touched
            for line in board.point_lines[point]
            if (track := state.built.get(line)) is not None and track.seat != seat
        }
    )
    return Idea(move, heads_for, joins, left, tuple(others), cost)
