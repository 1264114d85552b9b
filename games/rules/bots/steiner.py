"""Exact Steiner costs for many "what if" questions at once, for the strong bot.

``scoring.missing_cost`` answers one question: what a seat still needs now. A bot asks it
for every line it might build and every point it might start on. Asking one by one costs
a Steiner tree each; the Dreyfus-Wagner tables answer them all from one computation:

- ``tables[A][v]``: the cheapest tree joining the terminals in ``A`` (a bit mask) and ``v``.
  So ``tables[full][v]`` is the cost of joining the terminals and the point ``v``: the
  cost of a start marker at ``v`` under the stricter reading.
- A tree that uses a line ``a-b`` (built for free) falls apart, without it, into a tree at
  ``a`` and a tree at ``b`` that share out the terminals. So the cost with ``a-b`` free is
  ``min(cost now, min over A of tables[A][a] + tables[rest][b])``, exactly.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from operator import add

from ..scoring import INFINITY, Graph, _spread


class SteinerTables:
    """The Dreyfus-Wagner tables of ``terminals`` in ``graph``, over every subset.

    Values are exact up to the cost of some tree joining the terminals, which is all that
    ``cost_with_line`` needs and all that a cheapest start can cost; above it they are only
    upper bounds, unless ``everywhere`` (slower) asks for every value exact.
    """

    def __init__(self, graph: Graph, terminals: Sequence[int], *, everywhere: bool = False):
        self.terminals = list(dict.fromkeys(terminals))
        size = len(graph)
        k = len(self.terminals)
        self.full = (1 << k) - 1
        loose = sum(cost for edges in graph for _other, cost in edges) // 2
        tables: list[list[int]] = [[0] * size] + [[]] * self.full
        for i, terminal in enumerate(self.terminals):
            start = [INFINITY] * size
            start[terminal] = 0
            tables[1 << i] = _spread(start, graph, loose)
        self.joinable = all(
            tables[1][t] < INFINITY for t in self.terminals
        )  # a city walled in by coloured track makes every tree impossible
        # Sweeps may stop at the cost of a tree that surely exists: no cheaper answer
        # is built from a part dearer than that.
        bound = loose
        if self.joinable and not everywhere:
            bound = _spanning_bound(tables, self.terminals)
        for mask in range(3, self.full + 1):
            if mask & (mask - 1) == 0:
                continue
            merged = [INFINITY] * size
            sub = (mask - 1) & mask
            while sub:
                rest = mask ^ sub
                if sub < rest:
                    merged = list(map(min, merged, map(add, tables[sub], tables[rest])))
                sub = (sub - 1) & mask
            tables[mask] = _spread(merged, graph, bound)
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


def _spanning_bound(tables: list[list[int]], terminals: list[int]) -> int:
    """The cost of a minimum spanning tree over the terminals' pairwise distances: a tree
    that surely exists, so no wanted value exceeds it (Prim's algorithm)."""
    if len(terminals) <= 1:
        return 0
    k = len(terminals)
    best = {i: tables[1][terminals[i]] for i in range(1, k)}
    total = 0
    while best:
        i = min(best, key=best.__getitem__)
        total += best.pop(i)
        for j in best:
            best[j] = min(best[j], tables[1 << i][terminals[j]])
    return total
