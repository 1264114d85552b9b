"""The board as a graph as one seat sees it, and every search over it.

Track the seat may use costs nothing, another seat's coloured line cannot be crossed.
Costs are 0, 1 or 2, so searches use bucket queues. ``sweep``, ``spread`` and
``distances`` run over a ``cost_graph`` built once for many searches (scoring);
``cheapest_paths`` reads the board directly for one-off questions (the bots' what-ifs).
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Iterable, Mapping
from functools import cache

from .boards import Board
from .state import Track

INFINITY = 1 << 30

Graph = list[list[tuple[int, int]]]  # point -> [(neighbour, cost), ...], as one seat sees it
Adjacency = tuple[tuple[tuple[int, int, int], ...], ...]  # point -> ((neighbour, line, cost), ...)
Built = Mapping[int, Track]  # line id -> the track on it


@cache
def adjacency(board: Board) -> Adjacency:
    """Each point's lines, as ``(neighbour, line id, cost)`` in line order."""
    neighbours: list[list[tuple[int, int, int]]] = [[] for _ in board.points]
    for line, (a, b, cost) in enumerate(board.lines):
        neighbours[a].append((b, line, cost))
        neighbours[b].append((a, line, cost))
    return tuple(tuple(edges) for edges in neighbours)


def reach(board: Board, built: Built, seat: int | None, sources: Iterable[int]) -> set[int]:
    """The points joined to ``sources`` by track ``seat`` may use (None: any track)."""
    edges = adjacency(board)
    seen = set(sources)
    stack = list(seen)
    while stack:
        for other, line, _cost in edges[stack.pop()]:
            if other not in seen:
                track = built.get(line)
                if track is not None and (
                    seat is None or not track.exclusive or track.seat == seat
                ):
                    seen.add(other)
                    stack.append(other)
    return seen


def cost_graph(board: Board, built: Built, seat: int, *, cross_coloured: bool = False) -> Graph:
    """The board as ``seat`` sees it, for many sweeps over one position.

    ``cross_coloured`` is scoring's fallback for a city walled in (see ``missing_cost``).
    """
    graph: Graph = list(map(list, _bare_graph(board)))
    if built:
        lines = board.lines
        free = _free_entries(board)
        barred = set()
        # Each built line's two entries set in place: the rows keep the board's line order.
        for line, track in built.items():
            if not track.exclusive or track.seat == seat:
                a, b, _cost = lines[line]
                (i, entry_a), (j, entry_b) = free[line]
                graph[a][i] = entry_a
                graph[b][j] = entry_b
            elif not cross_coloured:
                barred.add(line)
        if barred:
            edges = adjacency(board)
            for point in {p for line in barred for p in lines[line][:2]}:
                graph[point] = [
                    entry
                    for entry, (_other, line, _cost) in zip(graph[point], edges[point], strict=True)
                    if line not in barred
                ]
    return graph


@cache
def _free_entries(board: Board) -> tuple[tuple[tuple[int, tuple[int, int]], ...], ...]:
    """For each line, where it stands in its two points' rows of ``cost_graph`` and its
    entry there once it costs nothing: ``((index in a's row, (b, 0)), (index in b's, (a, 0)))``."""
    edges = adjacency(board)
    entries = []
    for line, (a, b, _cost) in enumerate(board.lines):
        i = [edge[1] for edge in edges[a]].index(line)
        j = [edge[1] for edge in edges[b]].index(line)
        entries.append(((i, (b, 0)), (j, (a, 0))))
    return tuple(entries)


@cache
def _bare_graph(board: Board) -> tuple[tuple[tuple[int, int], ...], ...]:
    """The board with no track built, as ``cost_graph`` gives it."""
    return tuple(tuple((other, cost) for other, _line, cost in edges) for edges in adjacency(board))


def sweep(
    dist: list[int],
    graph: Graph,
    sources: Iterable[int],
    bound: int,
    ahead: list[int] | None = None,
    most: int | None = None,
) -> list[int]:
    """Lower ``dist`` in place to shortest distances from ``sources``; return the points
    reached, nearest first.

    Only points within ``bound`` (less ``ahead[v]``, what a guided search must still pay)
    and ``most`` are reached; others may keep a distance too high, never too low.
    """
    ahead = ahead or _NOTHING_AHEAD[len(dist)]
    most = bound if most is None else min(bound, most)
    buckets: list[list[int]] = [[] for _ in range(most + 1)]
    top = -1
    for point in sources:
        value = dist[point]
        if value <= most and value + ahead[point] <= bound:
            buckets[value].append(point)
            if value > top:
                top = value
    settled = []
    value = 0
    while value <= top:
        # Iterating a list sees what is appended meanwhile: zero-cost lines add to this bucket.
        for point in buckets[value]:
            if dist[point] != value:
                continue
            settled.append(point)
            for other, cost in graph[point]:
                new = value + cost
                if new < dist[other] and new + ahead[other] <= bound:
                    dist[other] = new
                    if new <= most:
                        buckets[new].append(other)
                        if new > top:
                            top = new
        value += 1
    return settled


def lowered(
    board: Board, graph: Graph, dist: list[int], lines: Iterable[int], bound: int
) -> list[int]:
    """``dist`` (cheapest distances in ``graph``) once ``lines`` cost nothing, exact up to
    ``bound`` (higher ones may stay too high): only what the lines shorten is searched."""
    rows = list(graph)
    ends: list[int] = []
    for line in lines:
        a, b, _cost = board.lines[line]
        # A free entry beside the priced one: the cheaper of the two is what counts.
        rows[a] = [*rows[a], (b, 0)]
        rows[b] = [*rows[b], (a, 0)]
        ends += (a, b)
    dist = list(dist)
    sweep(dist, rows, ends, bound)
    return dist


class _Zeros(dict):
    """Lists of zeros by length, made once each."""

    def __missing__(self, size: int) -> list[int]:
        self[size] = [0] * size
        return self[size]


_NOTHING_AHEAD = _Zeros()


def spread(start: list[int], graph: Graph, bound: int) -> list[int]:
    """Shortest distances from weighted sources ``start``, exact up to ``bound``: ``sweep``
    from every point, without a guide (the Steiner tables' inner loop)."""
    dist = list(start)
    buckets: list[list[int]] = [[] for _ in range(bound + 1)]
    for point, value in enumerate(dist):
        if value <= bound:
            buckets[value].append(point)
    for value, bucket in enumerate(buckets):
        # Iterating a list sees what is appended meanwhile: zero-cost lines add to it.
        for point in bucket:
            if dist[point] != value:
                continue
            for other, cost in graph[point]:
                new = value + cost
                if new < dist[other] and new <= bound:
                    dist[other] = new
                    buckets[new].append(other)
    return dist


def distances(graph: Graph, sources: Iterable[int]) -> list[int]:
    """Cheapest distances in ``graph`` from the nearest of ``sources``."""
    dist = [INFINITY] * len(graph)
    now = list(sources)
    for point in now:
        dist[point] = 0
    # A line costs 0, 1 or 2, so three queues taken in turn hold every distance.
    later: list[int] = []
    latest: list[int] = []
    value = 0
    while now or later or latest:
        queues = (now, later, latest)
        # Iterating a list sees what is appended meanwhile: zero-cost lines add to ``now``.
        for point in now:
            if dist[point] == value:
                for other, cost in graph[point]:
                    new = value + cost
                    if new < dist[other]:
                        dist[other] = new
                        queues[cost].append(other)
        value += 1
        now, later, latest = later, latest, []
    return dist


@cache
def bare_distances(board: Board, source: int) -> tuple[int, ...]:
    """``distances`` from ``source`` with no track built: kept for the process, since every
    round's start markers are weighed on the bare board again and again."""
    return tuple(distances(cost_graph(board, {}, 0), [source]))


def cheapest_paths(
    board: Board, built: Built, seat: int, sources: Iterable[int], targets: Iterable[int] = ()
) -> tuple[list[int], list[int]]:
    """Cheapest distances from ``sources`` as ``seat`` sees the board, and the line each
    point is reached by (-1 for none).

    Ties go to the lowest-numbered points, so bots play the same way every time. With
    ``targets``, the search stops at the nearest: distances beyond are upper bounds.
    """
    return _search(board, built, seat, sources, targets, nearest_only=False)


def _search(
    board: Board,
    built: Built,
    seat: int,
    sources: Iterable[int],
    targets: Iterable[int],
    *,
    nearest_only: bool,
) -> tuple[list[int], list[int]]:
    """``cheapest_paths``, as ``seat`` sees ``built``."""
    costs = line_costs(board, built, seat)
    return cheapest_paths_by_cost(board, costs, sources, targets, nearest_only=nearest_only)


def cheapest_paths_by_cost(
    board: Board,
    costs: list[int],
    sources: Iterable[int],
    targets: Iterable[int] = (),
    *,
    nearest_only: bool = False,
) -> tuple[list[int], list[int]]:
    """``cheapest_paths`` over lines costing ``costs`` (``line_costs``, kept up to date by a
    caller that builds as it searches, as the bots' playouts do); ``nearest_only`` stops
    once the way to the nearest target can no longer change (a lower-numbered target can
    still join its bucket only by free track).
    """
    links = _links(board)
    dist = [INFINITY] * len(links)
    via = [-1] * len(links)
    first = list(dict.fromkeys(sources))
    for point in first:
        dist[point] = 0
    # A line costs at most 2, so two empty buckets ahead are enough.
    buckets: list[list[int]] = [first, [], []]
    top = 0
    wanted = set(targets)
    value = 0
    while value <= top:
        if nearest_only and wanted:
            near = [t for t in wanted if dist[t] == value]
            if near:
                lowest = min(near)
                if not any(
                    t < lowest
                    and dist[t] > value
                    and any(costs[line] == 0 for _o, line in links[t])
                    for t in wanted
                ):
                    break
        # Worked off lowest-numbered first: the bucket sorted once, and a point a free line
        # adds to it put in its place among those still to come (as a heap would pop them).
        bucket = buckets[value]
        bucket.sort()
        # A target settled in this bucket ends the search with it (a settled point is
        # taken from its bucket once, so this sees every one).
        reached = False
        for index, point in enumerate(bucket):
            if dist[point] != value:
                continue
            if point in wanted:
                reached = True
            for other, line in links[point]:
                new = value + costs[line]  # never below INFINITY across a barred line
                if new < dist[other]:
                    dist[other] = new
                    via[other] = line
                    if new == value:
                        insort(bucket, other, index + 1)
                    else:
                        buckets[new].append(other)
                        if new > top:
                            top = new
        if reached:
            break
        value += 1
        buckets.append([])
    return dist, via


@cache
def _links(board: Board) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Each point's lines as ``(neighbour, line id)``, in line order."""
    return tuple(tuple((other, line) for other, line, _cost in edges) for edges in adjacency(board))


def line_costs(board: Board, built: Built, seat: int) -> list[int]:
    """What each line costs ``seat``: 0 when built and usable, INFINITY when barred."""
    costs = list(_building_costs(board))
    for line, track in built.items():
        costs[line] = INFINITY if track.exclusive and track.seat != seat else 0
    return costs


@cache
def _building_costs(board: Board) -> tuple[int, ...]:
    """Each line's building cost."""
    return tuple(cost for _a, _b, cost in board.lines)


def first_line_towards(
    board: Board, built: Built, seat: int, network: set[int], targets: Iterable[int]
) -> int | None:
    """The line to build first towards the nearest of ``targets`` (ties: lowest number),
    or None when every target is in the network or out of reach."""
    targets = set(targets) - network
    if not targets or not network:
        return None
    dist, via = _search(board, built, seat, network, targets, nearest_only=True)
    found = [t for t in targets if dist[t] < INFINITY]
    if not found:
        return None
    point = min(found, key=lambda t: (dist[t], t))
    first = None
    while point not in network:
        line = via[point]
        if line not in built:
            first = line
        a, b, _cost = board.lines[line]
        point = a if b == point else b
    return first
