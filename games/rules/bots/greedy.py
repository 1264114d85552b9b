"""The greedy bot: quick and simple.

``greedy_move`` starts on the city of its hand cheapest to join to the other four, then
builds along the cheapest path from its network to its nearest city not yet joined.
"""

from __future__ import annotations

from ..graph import cost_graph, distances, first_line_towards
from ..moves import Build, Line, Move, Pass, PlaceStart
from ..network import cities_joined, network
from ..state import PLACING, GameState, Track
from ..turns import legal_lines, may_colour


def choose_start(state: GameState, seat: int) -> int:
    """The free city of ``seat``'s hand cheapest to join to the other four."""
    graph = cost_graph(state.board, state.built, seat)
    cities = [state.board.city_point(name) for name in state.hands[seat]]
    taken = set(state.starts)
    best = None
    for city in cities:
        if city in taken:
            continue
        dist = distances(graph, [city])
        total = sum(dist[other] for other in cities)
        if best is None or total < best[0]:
            best = (total, city)
    if best is not None:
        return best[1]
    # All five cities hold other markers: take the free point nearest to them.
    dist = distances(graph, cities)
    return min((d, p) for p, d in enumerate(dist) if p not in taken)[1]


def next_line_towards_city(state: GameState, seat: int) -> int | None:
    """The first line to build on a cheapest path from the network to the nearest city
    of ``seat`` not yet in it (None when there is none)."""
    return first_line_towards(
        state.board, state.built, seat, network(state, seat), state.terminals(seat)
    )


def greedy_move(state: GameState, seat: int) -> Move:
    """A simple, quick player: the nearest city first, one cheapest path at a time.

    Under the exclusive-track variant it spends its coloured tracks on its first lines,
    where they keep others off its way.
    """
    if state.phase == PLACING:
        return PlaceStart(state.board.points[choose_start(state, seat)])
    board = state.board
    scratch = state.copy()
    lines: list[Line] = []
    coloured: set[int] = set()
    while len(lines) < 2:
        line = next_line_towards_city(scratch, seat)
        if line is None:
            break
        cost = board.lines[line][2]
        if lines and cost == 2:
            break  # a double line is built alone
        colour = may_colour(scratch, seat, board.line_points(line))
        if colour:
            coloured.add(len(lines))
            scratch.exclusive_left[seat] -= 1
        else:
            scratch.supply_left -= 1
        lines.append(board.line_points(line))
        scratch.built[line] = Track(seat, colour)
        if cost == 2 or scratch.supply_left == 0 or cities_joined(scratch, seat):
            break  # the turn (or the round) ends here
    if lines:
        return Build(tuple(lines), frozenset(coloured))
    legal = legal_lines(state, seat)
    return Build((legal[0],)) if legal else Pass()
