"""Which built track a seat may use, and what it joins.

Built black track is shared by everyone; a coloured (exclusive) line serves only the seat
that built it. Networks meet at crossing points: every usable line touching a point joins it.
The searches themselves are in ``graph``.
"""

from __future__ import annotations

from .graph import reach
from .state import GameState


def network(state: GameState, seat: int) -> set[int]:
    """The points of the network joined to ``seat``'s start marker (empty before it is placed)."""
    start = state.start_point(seat)
    if start is None:
        return set()
    return reach(state.board, state.built, seat, (start,))


def cities_joined(state: GameState, seat: int) -> bool:
    """Whether ``seat``'s five cities (and, under the stricter reading, its start marker)
    are joined by track it may use."""
    terminals = state.terminals(seat)
    if state.options.cities_must_join_start and state.start_point(seat) is None:
        return False
    if len(set(terminals)) > 1 and not all(_has_track(state, seat, p) for p in terminals):
        return False  # the quick answer, most of a round: a city without usable track
    return set(terminals) <= reach(state.board, state.built, seat, terminals[:1])


def _has_track(state: GameState, seat: int, point: int) -> bool:
    """Whether track that ``seat`` may use touches ``point``."""
    built = state.built
    for line in state.board.point_lines[point]:
        track = built.get(line)
        if track is not None and (not track.exclusive or track.seat == seat):
            return True
    return False


def joined_seats(state: GameState) -> list[int]:
    """Seats whose cities are joined, in seat order."""
    return [seat for seat in range(state.seat_count) if cities_joined(state, seat)]


def coloured_at(state: GameState, point: int) -> int:
    """How many coloured (exclusive) lines touch ``point``."""
    built = state.built
    return sum(
        1
        for line in state.board.point_lines[point]
        if (track := built.get(line)) is not None and track.exclusive
    )
