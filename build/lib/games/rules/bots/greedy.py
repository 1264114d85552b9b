"""The greedy bot: quick and simple.

``greedy_move`` starts on the city of its hand cheapest to join to the other four, then
builds along the cheapest path from its network to its nearest city not yet joined.
"""

from __future__ import annotations

import heapq

from ..moves import Build, Line, Move, Pass, PlaceStart
from ..network import cities_joined, coloured_at, network
from ..scoring import INFINITY, Graph, cost_graph
from ..state import PLACING, GameState, Track
from ..turns import MAX_COLOURED_AT_POINT, legal_lines


def shortest_paths(graph: Graph, sources: set[int]) -> tuple[list[int], list[int]]:
    """Distances from ``sources`` and each point's predecessor on a cheapest path."""
    dist = [INFINITY] * len(graph)
    parent = [-1] * len(graph)
    heap = [(0, point) for point in sources]
    for point in sources:
        dist[point] = 0
    while heap:
        value, point = heapq.heappop(heap)
        if value != dist[point]:
            continue
        for other, cost in graph[point]:
            new = value + cost
            if new < dist[other]:
                dist[other] = new
                parent[other] = point
                heapq.heappush(heap, (new, other))
    return dist, parent


def choose_start(state: GameState, seat: int) -> int:
    """The free city of ``seat``'s hand cheapest to join to the other four."""
    graph = cost_graph(state, seat)
    cities = [state.board.city_point(name) for name in state.hands[seat]]
    taken = set(state.starts)
    best = None
    for city in cities:
        if city in taken:
            continue
        dist, _parent = shortest_paths(graph, {city})
        total = sum(dist[other] for other in cities)
        if best is None or total < best[0]:
            best = (total, city)
    if best is not None:
        return best[1]
    # All five cities hold other markers: take the free point nearest to them.
    dist, _parent = shortest_paths(graph, set(cities))
    return min((d, p) for p, d in enumerate(dist) if p not in taken)[1]


def next_line_towards_city(state: GameState, seat: int) -> int | None:
    """The first line to build on a cheapest path from the network to the nearest city
    of ``seat`` not yet in it (None when there is none)."""
    reach = network(state, seat)
    targets = [p for p in state.terminals(seat) if p not in reach]
    if not targets or not reach:
        return None
    dist, parent = shortest_paths(cost_graph(state, seat), reach)
    target = min(targets, key=lambda p: (dist[p], p))
    if dist[target] >= INFINITY:
        return None
    board = state.board
    first = None
    point = target
    while point not in reach:
        before = parent[point]
        line = board.line_index[(before, point)]
        if line not in state.built:
            first = line
        point = before
    return first


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
        a, b, cost = board.lines[line]
        if lines and cost == 2:
            break  # a double line is built alone
        colour = scratch.exclusive_left[seat] > 0 and all(
            coloured_at(scratch, p) < MAX_COLOURED_AT_POINT for p in (a, b)
        )
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
