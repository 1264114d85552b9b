"""Cheapest ways over the board for the strong bot's quick what-ifs.

The engine's own functions (``cost_graph``, ``network``) rebuild the board graph for one
state; the strong bot asks thousands of what-ifs a move, each with a few lines more, so
here the track is a plain set of line ids over one shared adjacency list. All track
counts as usable: the what-ifs are guesses at what the others will do, and the seat's own
costs are always counted exactly by ``scoring``.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..boards import Board
from ..scoring import INFINITY

_ADJACENCY: dict[str, list[list[tuple[int, int, int]]]] = {}


class Paths:
    """Distances and cheapest paths on ``board`` with a given set of lines built."""

    def __init__(self, board: Board):
        self.lines = board.lines
        if board.name not in _ADJACENCY:
            adjacency: list[list[tuple[int, int, int]]] = [[] for _ in board.points]
            for line, (a, b, cost) in enumerate(board.lines):
                adjacency[a].append((b, line, cost))
                adjacency[b].append((a, line, cost))
            _ADJACENCY[board.name] = adjacency
        self.adjacency = _ADJACENCY[board.name]

    def reach(self, built: set[int], start: int) -> set[int]:
        """The points joined to ``start`` by ``built`` lines."""
        seen = {start}
        stack = [start]
        while stack:
            point = stack.pop()
            for other, line, _cost in self.adjacency[point]:
                if line in built and other not in seen:
                    seen.add(other)
                    stack.append(other)
        return seen

    def distances(self, built: set[int], sources: Iterable[int]) -> list[int]:
        """Cheapest distances from ``sources``, built lines costing nothing (Dial's
        algorithm: costs are 0, 1 or 2)."""
        dist, _via = self._search(built, sources, targets=())
        return dist

    def distances_from_network(self, built: set[int], start: int) -> list[int]:
        """Cheapest distances from the network joined to ``start``."""
        return self.distances(built, self.reach(built, start))

    def first_line_towards(self, built: set[int], start: int, targets: set[int]) -> int | None:
        """The line to build first on a cheapest way from ``start``'s network to the
        nearest of ``targets`` (the unbuilt line nearest the network), or None."""
        network = self.reach(built, start)
        targets = targets - network
        if not targets:
            return None
        dist, via = self._search(built, network, targets)
        found = [t for t in targets if dist[t] < INFINITY]
        if not found:
            return None
        point = min(found, key=lambda t: (dist[t], t))
        first = None
        while point not in network:
            line = via[point]
            if line not in built:
                first = line
            a, b, _cost = self.lines[line]
            point = a if b == point else b
        return first

    def _search(
        self, built: set[int], sources: Iterable[int], targets: Iterable[int]
    ) -> tuple[list[int], list[int]]:
        """Distances and the line each point was reached by. With ``targets``, it stops
        once the nearest of them are settled (the rest of the distances are then partial)."""
        adjacency = self.adjacency
        dist = [INFINITY] * len(adjacency)
        via = [-1] * len(adjacency)
        buckets: list[list[int]] = [[]]
        for point in sources:
            dist[point] = 0
            buckets[0].append(point)
        wanted = set(targets)
        value = 0
        while value < len(buckets):
            for point in buckets[value]:
                if dist[point] != value:
                    continue
                for other, line, cost in adjacency[point]:
                    new = value if line in built else value + cost
                    if new < dist[other]:
                        dist[other] = new
                        via[other] = line
                        while len(buckets) <= new:
                            buckets.append([])
                        buckets[new].append(other)
            if wanted and any(dist[t] == value for t in wanted):
                break
            value += 1
        return dist, via
