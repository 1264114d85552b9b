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

from games import rules

# The others' turns played out after the seat's move: each of them this many times.
REPLY_ROUNDS = 4


def missing_after_replies(
    state: rules.GameState, seat: int, lines: Sequence[int], tables: Sequence[list]
) -> float:
    """The seat's missing cost once it has built ``lines`` and the others have answered,
    averaged over ``tables`` (guesses at every seat's city points)."""
    total = 0
    for table in tables:
        scratch = state.copy()
        for line in lines:
            scratch.built[line] = rules.Track(seat, False)
        scratch.supply_left -= len(lines)
        for line, builder in replies(scratch, seat, table):
            scratch.built[line] = rules.Track(builder, False)
        total += rules.missing_cost(scratch, seat)
    return total / len(tables)


def replies(state: rules.GameState, seat: int, table: list) -> list[tuple[int, int]]:
    """The lines the others build (with who builds each) in their next ``REPLY_ROUNDS``
    turns each, heading for their nearest city in ``table``, until a line joins some
    seat's cities or the supply runs out (either ends the round, as in ``turns``)."""
    board = state.board
    built = dict(state.built)
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
                network = rules.reach(board, built, other, [start])
                line = rules.first_line_towards(board, built, other, network, table[other])
                cost = board.lines[line][2] if line is not None else 0
                if line is None or (spent and cost == 2):
                    break  # nothing left to build, or a double line, which goes alone
                built[line] = rules.Track(other, False)
                answered.append((line, other))
                supply -= 1
                spent += cost
                if supply == 0 or joins_some_seat(board, built, line, needs):
                    return answered
    return answered


def joins_some_seat(
    board: rules.Board, built: rules.Built, line: int, needs: list[set[int]]
) -> bool:
    """Whether the track through ``line`` joins all that some seat must join (``needs``,
    by seat), as that seat may use the track."""
    end = board.lines[line][0]
    joined = rules.reach(board, built, None, [end])  # all track: what any seat may use, and more
    return any(
        need <= joined and need <= rules.reach(board, built, seat, [end])
        for seat, need in enumerate(needs)
    )
