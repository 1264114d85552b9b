"""Exact scoring: the fewest track points that would join a seat's cities.

This is a minimum Steiner tree problem on the board graph, where track the seat may use
costs nothing, free lines cost 1 (flat land) or 2 (river, mountain, sea), and an
opponent's coloured line cannot be crossed. With at most six terminals, the
Dreyfus-Wagner dynamic programme (in the Erickson-Monma-Veinott form: merge subtrees at a
point, then grow them along shortest paths) is exact: 2^(k-1) shortest-path sweeps
(``graph.sweep``) over the seat's cost graph. ``steiner_cost``, which scores, first finds
a good tree quickly and then sweeps only where a cheaper one could be; ``SteinerTables``
keeps every table whole, so that they answer the bots' "what if" questions (the cost with
one more line free, or with a start marker at any point) at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from operator import add

from .graph import INFINITY, Graph, cost_graph, distances, spread, sweep
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
        tables: list[list[int]] = [[0] * size] + [[]] * self.full
        for i, terminal in enumerate(self.terminals):
            tables[1 << i] = distances(graph, [terminal])
        points = self.terminals if also is None else [*self.terminals, also]
        self.joinable = not k or all(tables[1][p] < INFINITY for p in points)
        if self.joinable and not everywhere:
            self.bound = spanning_bound([tables[1 << i] for i in range(k)], points)
        else:
            # No tree costs more than every line together: every value stays exact.
            self.bound = sum(cost for edges in graph for _other, cost in edges) // 2
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


def steiner_cost(graph: Graph, terminals: Sequence[int]) -> int | None:
    """The cost of a cheapest tree joining ``terminals``, or None if they cannot be joined.

    ``known_tree_cost`` finds a good tree, most often a cheapest one; Dreyfus-Wagner then
    looks only for a cheaper one. It runs over all terminals but one, the root, and is
    answered at the root. A part joining the terminals ``A`` at a point ``v`` leaves the
    rest of the tree to join ``v``, the root and the terminals outside ``A``; that costs
    at least ``ahead(v)``: the distance from ``v`` to the farthest of them, and no less
    than any tree joining them. A part dearer than ``target - ahead(v)`` cannot belong to
    a tree cheaper than the known one (``target`` is one less), so its sweep stops there,
    while every part of such a tree passes: the answer stays exact, and each sweep
    visits only the few points that pass.
    """
    terminals = apart_by_free_track(graph, terminals)
    if len(terminals) <= 1:
        return 0
    apart = [distances(graph, [terminal]) for terminal in terminals]
    if any(apart[0][terminal] >= INFINITY for terminal in terminals):
        return None
    known = known_tree_cost(graph, apart, terminals)
    target = known - 1
    every = list(range(len(terminals)))
    if len(terminals) == 2 or tree_lower_bound(apart, terminals, every) > target:
        return known
    *others, root = terminals
    full = (1 << len(others)) - 1
    size = len(graph)
    # For each set A of the others, from the full set down (a subset leaves out its
    # lowest missing terminal too): which terminals the rest of the tree must still
    # join, the farthest of them from each point, and what joining them alone costs at
    # least.
    outside: list[list[int]] = [[]] * full  # indexes into terminals
    far: list[list[int]] = [[]] * full
    rest_costs = [0] * full
    for mask in range(full - 1, 0, -1):
        missing = (~mask & full & -(~mask & full)).bit_length() - 1
        parent = mask | 1 << missing
        before = far[parent] if parent < full else apart[-1]
        outside[mask] = [missing, *(outside[parent] if parent < full else [len(others)])]
        far[mask] = list(map(max, before, apart[missing]))
        rest_costs[mask] = tree_lower_bound(apart, terminals, outside[mask])
    # tables[A]: the cheapest part joining A and each point (an upper bound where it
    # cannot belong to a cheaper tree), and the points where it can.
    tables: list[list[int]] = [[]] * (full + 1)
    reached: list[set[int]] = [set()] * (full + 1)
    for mask in range(1, full + 1):
        if mask & (mask - 1) == 0:  # one terminal: its distances
            tables[mask] = dist = apart[mask.bit_length() - 1]
            most = target - rest_costs[mask]
            reached[mask] = {
                point
                for point, (value, ahead) in enumerate(zip(dist, far[mask], strict=True))
                if value + ahead <= target and value <= most
            }
            continue
        dist = [INFINITY] * size
        sources = set()
        sub = (mask - 1) & mask
        while sub:
            rest = mask ^ sub
            if sub < rest:  # each split once: merge the parts where both can be
                left, right = tables[sub], tables[rest]
                for point in reached[sub] & reached[rest]:
                    value = left[point] + right[point]
                    if value < dist[point]:
                        dist[point] = value
                        sources.add(point)
            sub = (sub - 1) & mask
        if mask == full:
            # The last part grows along a cheapest path from where it merges to the root.
            to_root = apart[-1]
            cheaper = min((dist[point] + to_root[point] for point in sources), default=known)
            return min(cheaper, known)
        found = sweep(dist, graph, sources, target, far[mask], target - rest_costs[mask])
        reached[mask] = set(found)
        tables[mask] = dist
    raise AssertionError("the full set of terminals is the last mask")


def apart_by_free_track(graph: Graph, terminals: Sequence[int]) -> list[int]:
    """One of each group of ``terminals`` joined by free (zero-cost) lines: a tree
    joining those joins them all at the same cost."""
    joined: set[int] = set()
    kept = []
    for terminal in terminals:
        if terminal in joined:
            continue
        kept.append(terminal)
        joined.add(terminal)
        stack = [terminal]
        while stack:
            for other, cost in graph[stack.pop()]:
                if cost == 0 and other not in joined:
                    joined.add(other)
                    stack.append(other)
    return kept


def tree_lower_bound(apart: list[list[int]], terminals: list[int], indexes: list[int]) -> int:
    """No tree joining the terminals at ``indexes`` costs less: not less than the
    distance between any two of them, nor than half the sum of each one's distance to
    its nearest other (a walk round the tree passes each terminal and goes on to
    another, and covers each line twice)."""
    if len(indexes) < 2:
        return 0
    points = [terminals[i] for i in indexes]
    widest = 0
    nearest = 0
    for i in indexes:
        row = [apart[i][point] for point in points if point != terminals[i]]
        widest = max(widest, *row)
        nearest += min(row)
    return max(widest, (nearest + 1) // 2)


def known_tree_cost(graph: Graph, apart: list[list[int]], terminals: list[int]) -> int:
    """The cost of a good tree joining ``terminals`` (``apart[i]``: the distances from
    ``terminals[i]``): the cheapest of the spanning tree of their distances and of
    growing a tree from each terminal in turn, joining the nearest terminal left by a
    cheapest path to any point of the tree so far. Quick, and most often cheapest."""
    best = spanning_bound(apart, terminals)
    for start in range(len(terminals)):
        best = min(best, grown_tree_cost(graph, apart, terminals, start))
    return best


def grown_tree_cost(graph: Graph, apart: list[list[int]], terminals: list[int], start: int) -> int:
    """The cost of the tree grown from ``terminals[start]`` (see ``known_tree_cost``)."""
    tree = [terminals[start]]
    inside = set(tree)
    left = set(range(len(terminals))) - {start}
    cost = 0
    while left:
        nearest = None
        for i in left:
            row = apart[i]
            point = min(tree, key=row.__getitem__)
            if nearest is None or row[point] < nearest[0]:
                nearest = (row[point], i, point)
        distance, i, point = nearest
        cost += distance
        left.remove(i)
        # Walk a cheapest path from the tree to the terminal, adding its points to the
        # tree (a walk stuck among free lines stops early: the tree stays a real one).
        row, target, walked = apart[i], terminals[i], {point}
        while point != target:
            point = next(
                (
                    other
                    for other, line_cost in graph[point]
                    if row[other] + line_cost == row[point] and other not in walked
                ),
                None,
            )
            if point is None:
                break
            walked.add(point)
            if point not in inside:
                inside.add(point)
                tree.append(point)
        if target not in inside:
            inside.add(target)
            tree.append(target)
    return cost


def spanning_bound(apart: list[list[int]], points: list[int]) -> int:
    """The cost of a minimum spanning tree over the points' pairwise distances (Prim's
    algorithm): a tree that surely exists. ``apart[i]`` holds the distances from
    ``points[i]``; the last point needs none (distances are symmetric)."""
    last = len(points) - 1
    best = {i: apart[i][points[last]] for i in range(last)}
    total = 0
    while best:
        i = min(best, key=best.__getitem__)
        total += best.pop(i)
        for j in best:
            best[j] = min(best[j], apart[i][points[j]])
    return total


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
    """Track points ``seat`` still needs to join its cities, with all usable track free.

    An opponent's coloured line cannot be crossed. If coloured lines wall a city in
    completely, the cost is counted as if the seat built beside them, since a round
    must still be scored (the graph ``scoring_graph`` gives).
    """
    if not state.hands:
        return 0
    board, built, terminals = state.board, state.built, state.terminals(seat)
    cost = steiner_cost(cost_graph(board, built, seat), terminals)
    if cost is None:
        cost = steiner_cost(cost_graph(board, built, seat, cross_coloured=True), terminals)
    assert cost is not None, "the board graph is connected"
    return cost
