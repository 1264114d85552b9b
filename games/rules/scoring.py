"""Exact scoring: the fewest track points that would join a seat's cities.

This is a minimum Steiner tree problem on the board graph, where track the seat may use
costs nothing, free lines cost 1 (flat land) or 2 (river, mountain, sea), and an
opponent's coloured line cannot be crossed. With at most six terminals, the
Dreyfus-Wagner dynamic programme (in the Erickson-Monma-Veinott form: merge subtrees at a
point, then grow them along shortest paths) is exact and fast: 2^(k-1) shortest-path
sweeps over ~200 points, each one ``graph.spread`` over the seat's cost graph. The same
tables answer the bots' "what if" questions (the cost with one more line free, or with a
start marker at any point) at once: see ``SteinerTables``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from operator import add

from .graph import INFINITY, Graph, cost_graph, distances, spread
from .state import GameState


class SteinerTables:
    """The Dreyfus-Wagner tables of ``terminals`` in ``graph``, over every subset.

    - ``tables[A][v]``: the cheapest tree joining the terminals in ``A`` (a bit mask) and
      ``v``. So ``cost_with_point(v)`` is the cost of joining the terminals and ``v``.
    - A tree that uses a line ``a-b`` (built for free) falls apart, without it, into a tree
      at ``a`` and a tree at ``b`` that share out the terminals. So the cost with ``a-b``
      free is ``min(cost now, min over A of tables[A][a] + tables[rest][b])``, exactly.

    Sweeps stop at the cost of a tree that surely exists (joining the terminals and, when
    given, the point ``also``): no cheaper answer is built from a dearer part. Values up to
    that bound are exact, above it only upper bounds, unless ``everywhere`` (slower) asks
    for every value exact. ``joinable`` is False when some terminal (or ``also``) cannot be
    reached at all, e.g. walled in by coloured track.
    """

    def __init__(
        self,
        graph: Graph,
        terminals: Sequence[int],
        *,
        also: int | None = None,
        everywhere: bool = False,
    ):
        self.terminals = list(dict.fromkeys(terminals))
        size = len(graph)
        k = len(self.terminals)
        self.full = (1 << k) - 1
        # No path costs more than every line together: a first, loose bound for single sweeps.
        loose = sum(cost for edges in graph for _other, cost in edges) // 2
        tables: list[list[int]] = [[0] * size] + [[]] * self.full
        for i, terminal in enumerate(self.terminals):
            start = [INFINITY] * size
            start[terminal] = 0
            tables[1 << i] = spread(start, graph, loose)
        points = self.terminals if also is None else [*self.terminals, also]
        self.joinable = not k or all(tables[1][p] < INFINITY for p in points)
        self.bound = loose
        if self.joinable and not everywhere:
            self.bound = _spanning_bound(tables, points)
        for mask in range(3, self.full + 1):
            if mask & (mask - 1) == 0:
                continue  # single terminals are done
            merged = [INFINITY] * size
            sub = (mask - 1) & mask
            while sub:
                rest = mask ^ sub
                if sub < rest:  # each split once
                    merged = list(map(min, merged, map(add, tables[sub], tables[rest])))
                sub = (sub - 1) & mask
            tables[mask] = spread(merged, graph, self.bound)
        self.tables = tables
        self.cost = tables[self.full][self.terminals[0]] if self.terminals else 0

    def cost_with_point(self, point: int) -> int:
        """The cost of joining the terminals and ``point``."""
        return self.tables[self.full][point] if self.terminals else 0

    def cost_with_line(self, a: int, b: int) -> int:
        """The cost of joining the terminals once the line ``a-b`` costs nothing."""
        tables = self.tables
        full = self.full
        best = self.cost
        for mask in range(full + 1):
            value = tables[mask][a] + tables[full ^ mask][b]
            if value < best:
                best = value
        return best

    def costs_with_lines(self, lines: Iterable[tuple[int, int, int]]) -> dict[int, int]:
        """``{line id: cost}`` for each ``(line id, a, b)``."""
        return {line: self.cost_with_line(a, b) for line, a, b in lines}


def _spanning_bound(tables: list[list[int]], points: list[int]) -> int:
    """The cost of a minimum spanning tree over the points' pairwise distances (Prim's
    algorithm): a tree that surely exists. ``tables[1 << i]`` holds the distances from
    ``points[i]``; the last point may have no table of its own (distances are symmetric)."""
    last = len(points) - 1
    best = {i: tables[1 << i][points[last]] for i in range(last)}
    total = 0
    while best:
        i = min(best, key=best.__getitem__)
        total += best.pop(i)
        for j in best:
            best[j] = min(best[j], tables[1 << i][points[j]])
    return total


def steiner_cost(graph: Graph, terminals: Sequence[int]) -> int | None:
    """The cost of a cheapest tree joining ``terminals``, or None if they cannot be joined.

    The tables cover all terminals but one, which is then joined as their extra point:
    half the subsets of tabling them all.
    """
    terminals = list(dict.fromkeys(terminals))
    if len(terminals) <= 1:
        return 0
    tables = SteinerTables(graph, terminals[:-1], also=terminals[-1])
    if not tables.joinable:
        return None
    return min(tables.cost_with_point(terminals[-1]), tables.bound)


def scoring_graph(state: GameState, seat: int) -> Graph:
    """The graph ``seat``'s missing track is counted on: its ``cost_graph``, unless
    opponents' coloured lines wall one of its cities (or its start marker, under the
    stricter reading) in completely; then, since a round must still be scored, the
    graph where the seat builds beside them."""
    board, built = state.board, state.built
    graph = cost_graph(board, built, seat)
    terminals = state.terminals(seat) if state.hands else []
    if terminals:
        dist = distances(graph, terminals[:1])
        if any(dist[t] >= INFINITY for t in terminals):
            return cost_graph(board, built, seat, cross_coloured=True)
    return graph


def missing_cost(state: GameState, seat: int) -> int:
    """Track points ``seat`` still needs to join its cities, with all usable track free,
    counted on its ``scoring_graph``."""
    if not state.hands:
        return 0
    cost = steiner_cost(scoring_graph(state, seat), state.terminals(seat))
    assert cost is not None, "the board graph is connected"
    return cost
