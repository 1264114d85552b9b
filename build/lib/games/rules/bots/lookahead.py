"""Looking ahead: what a turn leaves the seat once the others have answered it.

Most turns, many moves lower the seat's missing cost equally; what tells them apart is
what the others do next. Track is shared, so the others' lines can join the seat's cities
for free, or be drawn elsewhere by the seat's own track. For each guess at their cities
(``reading.sample_tables``) the others play their next turns heading for their nearest
city, and the seat's missing cost is then counted exactly. The move with the lowest
average wins.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..scoring import missing_cost
from ..state import GameState, Track
from .paths import Paths

# The others' turns played out after the seat's move: each of them this many times.
REPLY_ROUNDS = 4


def missing_after_replies(
    state: GameState, seat: int, lines: Sequence[int], tables: Sequence[list], paths: Paths
) -> float:
    """The seat's missing cost once it has built ``lines`` and the others have answered,
    averaged over ``tables`` (guesses at every seat's city points)."""
    total = 0
    for table in tables:
        scratch = state.copy()
        for line in lines:
            scratch.built[line] = Track(seat, False)
        scratch.supply_left -= len(lines)
        for line, builder in replies(scratch, seat, table, paths):
            scratch.built[line] = Track(builder, False)
        total += missing_cost(scratch, seat)
    return total / len(tables)


def replies(state: GameState, seat: int, table: list, paths: Paths) -> list[tuple[int, int]]:
    """The lines the others build (with who builds each) in their next ``REPLY_ROUNDS``
    turns each, heading for their nearest city in ``table``, until a line joins some
    seat's cities or the supply runs out (either ends the round, as in ``turns``)."""
    built = set(state.built)
    supply = state.supply_left
    others = [(seat + k) % state.seat_count for k in range(1, state.seat_count)]
    # What must be joined for each seat, as in ``GameState.terminals``.
    needs = [set(table[s]) for s in range(state.seat_count)]
    if state.options.cities_must_join_start:
        for s, need in enumerate(needs):
            need.add(state.start_point(s))
    answered = []
    for _round in range(REPLY_ROUNDS):
        for other in others:
            start = state.start_point(other)
            if start is None:
                continue
            spent = 0
            while spent < 2 and supply > 0:
                line = paths.first_line_towards(built, start, set(table[other]))
                cost = state.board.lines[line][2] if line is not None else 0
                if line is None or (spent and cost == 2):
                    break  # nothing left to build, or a double line, which goes alone
                built.add(line)
                answered.append((line, other))
                supply -= 1
                spent += cost
                # Only the seats whose cities all lie in this line's network can be
                # joined by it.
                joined_by_it = paths.reach(built, state.board.lines[line][0])
                if supply == 0 or any(need <= joined_by_it for need in needs):
                    return answered
    return answered
