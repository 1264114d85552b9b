"""Exact scoring: the fewest track points that would join a seat's cities.

A minimum Steiner tree on the seat's cost graph; with at most six terminals the
Dreyfus-Wagner programme is exact and cheap. ``steiner_cost`` scores; ``SteinerTables``
keeps every table so the bots can ask "what if" (one more line, a start marker elsewhere).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from itertools import repeat
from operator import add

from .graph import INFINITY, Graph, cost_graph, distances, spread
from .state import GameState


class SteinerTables:
    """The Dreyfus-Wagner tables of ``terminals`` in ``graph``, over every subset.

    ``tables[A][v]`` is the cheapest tree joining the terminals in ``A`` (a bit mask) and
    ``v``. A tree using a free line ``a-b`` splits into a tree at ``a`` and one at ``b``,
    which is why ``cost_with_line`` is exact. Values above the cost of a known tree
    (through ``also``) are only upper bounds, unless ``everywhere``.
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
            # No tree costs more than every line together, so every value stays exact.
            self.bound = sum(cost for edges in graph for _other, cost in edges) // 2
        for mask in range(3, self.full + 1):
            if mask & (mask - 1) == 0:
                continue  # single terminals are done
            sums = []
            sub = (mask - 1) & mask
            while sub:
                rest = mask ^ sub
                if sub < rest:  # each split once
                    sums.append(map(add, tables[sub], tables[rest]))
                sub = (sub - 1) & mask
            # One pass over every split at once (none above INFINITY, as with no split).
            merged = list(map(min, repeat(INFINITY, size), *sums))
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


class _FreeGroups:
    """A graph's points joined by free lines, found as asked, and each group's distances
    (the same from any of its points), worked out once for every set of terminals."""

    def __init__(self, graph: Graph):
        self.graph = graph
        self.group: dict[int, int] = {}  # point -> the first point of its group asked for
        self.rows: dict[int, list[int]] = {}

    def apart(self, terminals: Sequence[int]) -> list[int]:
        """One of each group of ``terminals``, in order."""
        graph, group = self.graph, self.group
        kept = []
        seen = set()
        for terminal in terminals:
            label = group.get(terminal)
            if label is None:
                label = group[terminal] = terminal
                stack = [terminal]
                while stack:
                    for other, cost in graph[stack.pop()]:
                        if cost == 0 and other not in group:
                            group[other] = label
                            stack.append(other)
            if label not in seen:
                seen.add(label)
                kept.append(terminal)
        return kept

    def row(self, point: int) -> list[int]:
        """``distances`` from ``point``'s group (``point`` must have been through ``apart``)."""
        label = self.group[point]
        if label not in self.rows:
            self.rows[label] = distances(self.graph, [point])
        return self.rows[label]


def steiner_cost(graph: Graph, terminals: Sequence[int]) -> int | None:
    """The cost of a cheapest tree joining ``terminals``, or None if they cannot be joined."""
    return steiner_costs(graph, [terminals])[0]


def steiner_costs(graph: Graph, terminal_sets: Iterable[Sequence[int]]) -> list[int | None]:
    """``steiner_cost`` of each set of terminals in one ``graph`` (the seats that see the
    same track): a distance row is worked out once for all of them."""
    groups = _FreeGroups(graph)
    return [_steiner_cost(groups, terminals) for terminals in terminal_sets]


def _steiner_cost(groups: _FreeGroups, terminals: Sequence[int]) -> int | None:
    """Dreyfus-Wagner looks only for a tree cheaper than ``known_tree_cost``'s; a part
    that, with the cheapest possible rest (``tour_bounds``, distance to the root), would
    exceed that is dropped, so the answer stays exact while few parts are kept.
    """
    graph = groups.graph
    terminals = groups.apart(terminals)
    if len(terminals) <= 1:
        return 0
    apart = [groups.row(terminal) for terminal in terminals]
    if any(apart[0][terminal] >= INFINITY for terminal in terminals):
        return None
    known = known_tree_cost(graph, apart, terminals)
    target = known - 1
    rest_costs = tour_bounds(apart, terminals)
    if len(terminals) == 2 or rest_costs[-1] > target:
        return known
    full = (1 << (len(terminals) - 1)) - 1
    to_root = apart[-1]
    tables: list[list[int]] = [[]] * (full + 1)
    reached: list[set[int]] = [set()] * (full + 1)
    for mask in range(1, full):
        most = target - rest_costs[full ^ mask]
        if mask & (mask - 1) == 0:  # one terminal: its distances
            tables[mask] = dist = apart[mask.bit_length() - 1]
            reached[mask] = {
                point
                for point, (value, rest) in enumerate(zip(dist, to_root, strict=True))
                if value <= most and value + rest <= target
            }
            continue
        tables[mask] = dist = [INFINITY] * len(graph)
        sources = [
            point
            for point in _merge(tables, reached, mask, dist)
            if dist[point] <= most and dist[point] + to_root[point] <= target
        ]
        reached[mask] = _grow(dist, graph, sources, most, to_root, target) if sources else set()
    dist = [INFINITY] * len(graph)
    meet = _merge(tables, reached, full, dist)
    return min([known, *(dist[point] + to_root[point] for point in meet)])


def _merge(
    tables: list[list[int]], reached: list[set[int]], mask: int, dist: list[int]
) -> set[int]:
    """Lower ``dist`` where two parts sharing ``mask``'s terminals meet; return those points."""
    meet: set[int] = set()
    sub = (mask - 1) & mask
    while sub:
        rest = mask ^ sub
        if sub < rest:  # each split once
            left, right = tables[sub], tables[rest]
            both = reached[sub] & reached[rest]
            meet |= both
            for point in both:
                value = left[point] + right[point]
                if value < dist[point]:
                    dist[point] = value
        sub = (sub - 1) & mask
    return meet


def _grow(
    dist: list[int], graph: Graph, sources: list[int], most: int, to_root: list[int], target: int
) -> set[int]:
    """Dial's algorithm from ``sources``, bounded by ``most`` and ``target``: a narrow
    ``graph.sweep`` for the Dreyfus-Wagner inner loop."""
    buckets: list[list[int]] = [[] for _ in range(most + 1)]
    for point in sources:
        buckets[dist[point]].append(point)
    found = set()
    for value, bucket in enumerate(buckets):
        # Iterating a list sees what is appended meanwhile: zero-cost lines add to it.
        for point in bucket:
            if dist[point] != value:
                continue
            found.add(point)
            for other, cost in graph[point]:
                new = value + cost
                if new < dist[other] and new <= most and new + to_root[other] <= target:
                    dist[other] = new
                    buckets[new].append(other)
    return found


def apart_by_free_track(graph: Graph, terminals: Sequence[int]) -> list[int]:
    """One of each group of ``terminals`` already joined by free lines."""
    return _FreeGroups(graph).apart(terminals)


def tour_bounds(apart: list[list[int]], terminals: list[int]) -> list[int]:
    """For each set of all terminals but the last (a bit mask), half the shortest round
    trip through it and the last: no tree joining them costs less (Held-Karp, no sweep).
    """
    count = len(terminals) - 1
    home = [apart[-1][terminals[j]] for j in range(count)]
    between = [[apart[i][terminals[j]] for j in range(count)] for i in range(count)]
    paths = [[INFINITY] * count for _ in range(1 << count)]
    halves = [0] * (1 << count)
    for mask, ends in _held_karp_steps(count):
        row = paths[mask]
        for j, before, members in ends:
            if members:
                last, column = paths[before], between[j]
                row[j] = min([last[i] + column[i] for i in members])
            else:
                row[j] = home[j]
        tour = min([row[j] + home[j] for j, _before, _members in ends])
        halves[mask] = (tour + 1) // 2
    return halves


@cache
def _held_karp_steps(count: int) -> list[tuple[int, list[tuple[int, int, list[int]]]]]:
    """Each non-empty mask of ``count`` items, with each item and the mask without it."""
    steps = []
    for mask in range(1, 1 << count):
        items = [j for j in range(count) if mask >> j & 1]
        ends = [(j, mask ^ 1 << j, [i for i in items if i != j]) for j in items]
        steps.append((mask, ends))
    return steps


def known_tree_cost(graph: Graph, apart: list[list[int]], terminals: list[int]) -> int:
    """The cost of a good tree joining ``terminals``, quick and most often cheapest."""
    best = spanning_bound(apart, terminals)
    for start in range(len(terminals)):
        best = min(best, grown_tree_cost(graph, apart, terminals, start))
    return best


def grown_tree_cost(graph: Graph, apart: list[list[int]], terminals: list[int], start: int) -> int:
    """The cost of the tree grown from ``terminals[start]`` (see ``known_tree_cost``)."""
    tree = [terminals[start]]
    inside = set(tree)
    left = [i for i in range(len(terminals)) if i != start]
    cost = 0
    while left:
        nearest = INFINITY
        for j in left:
            row = apart[j]
            here = min(tree, key=row.__getitem__)
            if row[here] < nearest:
                nearest, i, point = row[here], j, here
        cost += nearest
        left.remove(i)
        # A walk stuck among free lines stops early, so the tree stays a real one.
        row, target, walked = apart[i], terminals[i], {point}
        while point != target:
            here = row[point]
            for other, line_cost in graph[point]:
                if row[other] + line_cost == here and other not in walked:
                    break
            else:
                break
            point = other
            walked.add(point)
            if point not in inside:
                inside.add(point)
                tree.append(point)
        if target not in inside:
            inside.add(target)
            tree.append(target)
    return cost


def spanning_bound(apart: list[list[int]], points: list[int]) -> int:
    """The cost of a minimum spanning tree over the points' distances: a tree that exists."""
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
    """The graph ``seat``'s missing track is counted on; if coloured lines wall a city in,
    the seat builds beside them, since a round must still be scored."""
    board, built = state.board, state.built
    graph = cost_graph(board, built, seat)
    terminals = state.terminals(seat) if state.hands else []
    if terminals:
        dist = distances(graph, terminals[:1])
        if any(dist[t] >= INFINITY for t in terminals):
            return cost_graph(board, built, seat, cross_coloured=True)
    return graph


def missing_cost(state: GameState, seat: int) -> int:
    """Track points ``seat`` still needs to join its cities (walls as in ``scoring_graph``)."""
    if not state.hands:
        return 0
    board, built, terminals = state.board, state.built, state.terminals(seat)
    cost = steiner_cost(cost_graph(board, built, seat), terminals)
    if cost is None:
        cost = steiner_cost(cost_graph(board, built, seat, cross_coloured=True), terminals)
    assert cost is not None, "the board graph is connected"
    return cost


def missing_costs(state: GameState) -> list[int]:
    """``missing_cost`` of every seat; the seats with no coloured track of their own see
    the same graph, built once for them all (and its distances worked out once)."""
    if not state.hands:
        return [0] * state.seat_count
    board, built = state.board, state.built
    owners = {track.seat for track in built.values() if track.exclusive}
    sharing = [seat for seat in range(state.seat_count) if seat not in owners]
    costs: dict[int, int] = {seat: missing_cost(state, seat) for seat in owners}
    if sharing:
        shared = steiner_costs(
            cost_graph(board, built, sharing[0]), [state.terminals(seat) for seat in sharing]
        )
        for seat, cost in zip(sharing, shared, strict=True):
            if cost is None:
                cost = steiner_cost(
                    cost_graph(board, built, seat, cross_coloured=True), state.terminals(seat)
                )
            assert cost is not None, "the board graph is connected"
            costs[seat] = cost
    return [costs[seat] for seat in range(state.seat_count)]
