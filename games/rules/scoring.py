"""Exact scoring: the fewest track points that would join a seat's cities.

This is a minimum Steiner tree problem on the board graph, where track the seat may use
costs nothing, free lines cost 1 (flat land) or 2 (river, mountain, sea), and an
opponent's coloured line cannot be crossed. With at most six terminals, the
Dreyfus-Wagner dynamic programme (in the Erickson-Monma-Veinott form: merge subtrees at a
point, then grow them along shortest paths) is exact and fast: 2^(k-1) shortest-path
sweeps over ~200 points. Edge costs are 0, 1 or 2, so each sweep is a bucket queue
(Dial's algorithm) rather than a heap.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import add

from .state import GameState

INFINITY = 1 << 30

Graph = list[list[tuple[int, int]]]  # point -> [(neighbour, cost), ...]


def cost_graph(state: GameState, seat: int, *, cross_coloured: bool = False) -> Graph:
    """The board as ``seat`` sees it when counting missing track.

    With ``cross_coloured``, opponents' coloured lines cost what building beside them
    would; that is only a fallback for a city walled in by them (see ``missing_cost``).
    """
    board = state.board
    built = state.built
    graph: Graph = [[] for _ in board.points]
    for line, (a, b, cost) in enumerate(board.lines):
        track = built.get(line)
        if track is not None:
            if not track.exclusive or track.seat == seat:
                cost = 0
            elif not cross_coloured:
                continue
        graph[a].append((b, cost))
        graph[b].append((a, cost))
    return graph


def _spread(start: list[int], graph: Graph, bound: int) -> list[int]:
    """Shortest distances from a weighted set of sources (``start[v]`` = cost at ``v``).

    Distances over ``bound`` are not wanted and stay at or above it.
    """
    dist = list(start)
    buckets: list[list[int]] = [[] for _ in range(bound + 1)]
    top = -1  # the highest bucket holding anything
    for point, value in enumerate(dist):
        if value <= bound:
            buckets[value].append(point)
            top = max(top, value)
    value = 0
    while value <= top:
        # Iterating a list sees what is appended meanwhile: zero-cost lines add to this bucket.
        for point in buckets[value]:
            if dist[point] != value:
                continue
            for other, cost in graph[point]:
                new = value + cost
                if new < dist[other] and new <= bound:
                    dist[other] = new
                    buckets[new].append(other)
                    if new > top:
                        top = new
        value += 1
    return dist


def steiner_cost(graph: Graph, terminals: Sequence[int]) -> int | None:
    """The cost of a cheapest tree joining ``terminals``, or None if they cannot be joined."""
    terminals = list(dict.fromkeys(terminals))
    if len(terminals) <= 1:
        return 0
    size = len(graph)
    root, others = terminals[-1], terminals[:-1]
    k = len(others)
    # No path costs more than every line together: a first, loose bound for single sweeps.
    loose = sum(cost for edges in graph for _other, cost in edges) // 2
    tables: list[list[int]] = [[]] * (1 << k)
    for i, terminal in enumerate(others):
        start = [INFINITY] * size
        start[terminal] = 0
        tables[1 << i] = _spread(start, graph, loose)
    if any(table[root] >= INFINITY for table in tables[1:] if table):
        return None
    bound = _tree_upper_bound(tables, others, root)
    full = (1 << k) - 1
    for mask in range(3, full + 1):
        if mask & (mask - 1) == 0:
            continue  # single terminals are done
        merged = [INFINITY] * size
        sub = (mask - 1) & mask
        while sub:
            rest = mask ^ sub
            if sub < rest:  # each split once
                merged = list(map(min, merged, map(add, tables[sub], tables[rest])))
            sub = (sub - 1) & mask
        tables[mask] = _spread(merged, graph, bound)
    return min(tables[full][root], bound)


def _tree_upper_bound(tables: list[list[int]], others: list[int], root: int) -> int:
    """A tree that surely exists: a minimum spanning tree over the terminals' pairwise
    distances (Prim's algorithm). It prunes the search; it is never the answer unless
    it is optimal."""
    terminals = [*others, root]

    def distance(i: int, j: int) -> int:
        # tables[1 << i] holds distances from others[i]; the root has no table of its own.
        if i < len(others):
            return tables[1 << i][terminals[j]]
        return tables[1 << j][terminals[i]]

    in_tree = {len(terminals) - 1}
    best = {i: distance(i, len(terminals) - 1) for i in range(len(others))}
    total = 0
    while best:
        i = min(best, key=best.__getitem__)
        total += best.pop(i)
        in_tree.add(i)
        for j in best:
            best[j] = min(best[j], distance(i, j))
    return total


def missing_cost(state: GameState, seat: int) -> int:
    """Track points ``seat`` still needs to join its cities, with all usable track free.

    An opponent's coloured line cannot be crossed. If coloured lines wall a city in
    completely, the cost is counted as if the seat built beside them, since a round
    must still be scored.
    """
    if not state.hands:
        return 0
    terminals = state.terminals(seat)
    cost = steiner_cost(cost_graph(state, seat), terminals)
    if cost is None:
        cost = steiner_cost(cost_graph(state, seat, cross_coloured=True), terminals)
    assert cost is not None, "the board graph is connected"
    return cost
