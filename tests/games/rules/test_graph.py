"""The graph kernel against plain searches, on random positions of both boards."""

import heapq
import random
from collections import deque

from hypothesis import given, settings
from hypothesis import strategies as st

from games import rules
from games.rules.graph import (
    INFINITY,
    adjacency,
    bare_distances,
    cheapest_paths,
    cost_graph,
    distances,
    first_line_towards,
    lowered,
    reach,
    spread,
    sweep,
)

SEATS = 4


def random_position(board_name: str, seed: int) -> tuple:
    """A board, some built track (black and coloured, by any seat), a seat and sources.

    Not a legal position, nor need it be: the kernel only reads the track."""
    rng = random.Random(seed)
    board = rules.get_board(board_name)
    built = {
        line: rules.Track(rng.randrange(SEATS), rng.random() < 0.3)
        for line in rng.sample(range(len(board.lines)), rng.randrange(0, 160))
    }
    sources = rng.sample(range(len(board.points)), rng.randrange(1, 4))
    return board, built, rng.randrange(SEATS), sources


def line_cost(board, built, seat, line, *, cross_coloured=False):
    """What ``line`` costs ``seat``: None when it may not cross it."""
    track = built.get(line)
    cost = board.lines[line][2]
    if track is None:
        return cost
    if track.exclusive and track.seat != seat:
        return cost if cross_coloured else None
    return 0


def plain_reach(board, built, seat, sources) -> set[int]:
    """Breadth-first over usable built lines, straight from the board's list of lines."""
    seen, queue = set(sources), deque(sources)
    while queue:
        point = queue.popleft()
        for line, (a, b, _cost) in enumerate(board.lines):
            if point in (a, b) and line_cost(board, built, seat, line) == 0:
                other = b if a == point else a
                if other not in seen:
                    seen.add(other)
                    queue.append(other)
    return seen


def plain_distances(board, built, seat, start: dict[int, int], **kwargs) -> list[int]:
    """Relax every line until nothing changes (Bellman-Ford): slow and obviously right."""
    dist = [INFINITY] * len(board.points)
    for point, value in start.items():
        dist[point] = value
    changed = True
    while changed:
        changed = False
        for line, (a, b, _cost) in enumerate(board.lines):
            cost = line_cost(board, built, seat, line, **kwargs)
            if cost is None:
                continue
            for x, y in ((a, b), (b, a)):
                if dist[x] + cost < dist[y]:
                    dist[y] = dist[x] + cost
                    changed = True
    return dist


positions = st.builds(
    random_position, st.sampled_from(rules.BOARD_NAMES), st.integers(0, 2**32 - 1)
)
SETTINGS = settings(max_examples=25, deadline=None)


@SETTINGS
@given(positions)
def test_reach_is_what_a_plain_search_over_usable_track_finds(position):
    board, built, seat, sources = position
    assert reach(board, built, seat, sources) == plain_reach(board, built, seat, sources)
    anyone = {line: rules.Track(seat, False) for line in built}
    assert reach(board, built, None, sources) == plain_reach(board, anyone, seat, sources)


def test_the_bare_boards_distances_are_those_with_no_track():
    for name in rules.BOARD_NAMES:
        board = rules.get_board(name)
        for point in range(0, len(board.points), 17):
            expected = plain_distances(board, {}, 0, {point: 0})
            assert list(bare_distances(board, point)) == expected
            assert bare_distances(board, point) is bare_distances(board, point)  # kept


@SETTINGS
@given(positions)
def test_distances_and_paths_are_the_cheapest(position):
    board, built, seat, sources = position
    expected = plain_distances(board, built, seat, dict.fromkeys(sources, 0))
    assert distances(cost_graph(board, built, seat), sources) == expected
    dist, via = cheapest_paths(board, built, seat, sources)
    assert dist == expected
    for point, value in enumerate(dist):
        if point in sources or value == INFINITY:
            assert via[point] == -1
            continue
        # The line a point is reached by leads back to a point that much nearer.
        a, b, _cost = board.lines[via[point]]
        assert point in (a, b)
        before = a if b == point else b
        assert dist[before] + line_cost(board, built, seat, via[point]) == value


def plain_cheapest_paths(board, built, seat, sources, targets=()) -> tuple[list, list, int]:
    """Dijkstra with one heap of ``(distance, point)``: of the points equally near, the
    lowest-numbered is worked off first, each point's lines in line order, and a point
    keeps the line that first reached it at its distance. With ``targets``, it stops
    once every point as near as the nearest target is worked off. Also returns the
    distance up to which points are settled."""
    lines_at = [[] for _ in board.points]
    for line, (a, b, _cost) in enumerate(board.lines):
        lines_at[a].append((b, line))
        lines_at[b].append((a, line))
    dist = [INFINITY] * len(board.points)
    via = [-1] * len(board.points)
    for point in sources:
        dist[point] = 0
    heap = [(0, point) for point in set(sources)]
    heapq.heapify(heap)
    settled = INFINITY
    while heap:
        value, point = heap[0]
        if targets and any(dist[t] < value for t in targets):
            settled = value - 1
            break  # the nearest target's distance is done with
        heapq.heappop(heap)
        if dist[point] != value:
            continue
        for other, line in lines_at[point]:
            cost = line_cost(board, built, seat, line)
            if cost is not None and value + cost < dist[other]:
                dist[other] = value + cost
                via[other] = line
                heapq.heappush(heap, (value + cost, other))
    return dist, via, settled


@SETTINGS
@given(positions, st.integers(0, 2**32 - 1))
def test_cheapest_paths_break_ties_and_stop_as_documented(position, seed):
    """Against a plain heap Dijkstra: the same distances and the same lines (ties to the
    lowest-numbered points) for every settled point, with and without targets."""
    board, built, seat, sources = position
    rng = random.Random(seed)
    for targets in ([], *(rng.sample(range(len(board.points)), rng.randint(1, 4)) for _ in "abc")):
        dist, via = cheapest_paths(board, built, seat, sources, targets)
        want_dist, want_via, settled = plain_cheapest_paths(board, built, seat, sources, targets)
        done = [p for p, value in enumerate(want_dist) if value <= settled]
        assert [dist[p] for p in done] == [want_dist[p] for p in done]
        assert [via[p] for p in done] == [want_via[p] for p in done]
        # Beyond the nearest target, distances are upper bounds, never below the truth.
        if targets:
            nearest = min(want_dist[t] for t in targets)
            assert all(dist[p] > nearest for p in range(len(dist)) if p not in done)


@SETTINGS
@given(positions, st.integers(0, 2**32 - 1))
def test_the_first_line_is_read_off_the_plain_cheapest_paths(position, seed):
    """The nearest target (lowest-numbered on a tie) and the first free line on its way
    back, as the plain search without targets has them: a search that stops early must
    not change which."""
    board, built, seat, sources = position
    network = reach(board, built, seat, sources)
    dist, via, _settled = plain_cheapest_paths(board, built, seat, network)
    rng = random.Random(seed)
    for _ in range(6):
        targets = set(rng.sample(range(len(board.points)), rng.randint(1, 6))) - network
        found = [t for t in targets if dist[t] < INFINITY]
        expected = None
        if found:
            point = min(found, key=lambda t: (dist[t], t))
            while point not in network:
                if via[point] not in built:
                    expected = via[point]
                a, b, _cost = board.lines[via[point]]
                point = a if b == point else b
        assert first_line_towards(board, built, seat, network, targets) == expected


@SETTINGS
@given(positions, st.integers(0, 12))
def test_a_spread_from_weighted_sources_is_exact_up_to_its_bound(position, bound):
    board, built, seat, sources = position
    start = [INFINITY] * len(board.points)
    weights = {point: i for i, point in enumerate(sources)}
    for point, weight in weights.items():
        start[point] = weight
    expected = plain_distances(board, built, seat, weights, cross_coloured=True)
    graph = cost_graph(board, built, seat, cross_coloured=True)
    for got, want in zip(spread(start, graph, bound), expected, strict=True):
        assert got == want if want <= bound else got > bound


@SETTINGS
@given(positions, st.integers(0, 2**32 - 1), st.integers(0, 40))
def test_distances_lowered_by_new_lines_are_those_with_the_lines_built(position, seed, bound):
    board, built, seat, sources = position
    free = [line for line in range(len(board.lines)) if line not in built]
    lines = random.Random(seed).sample(free, 2)
    graph = cost_graph(board, built, seat)
    before = distances(graph, sources)
    after = {**built, **{line: rules.Track(seat, False) for line in lines}}
    expected = plain_distances(board, after, seat, dict.fromkeys(sources, 0))
    got = lowered(board, graph, before, lines, bound)
    for value, want in zip(got, expected, strict=True):
        assert value == want if want <= bound else value > bound
    assert before == distances(graph, sources)  # the distances it was given are kept


@SETTINGS
@given(positions, st.integers(0, 2**32 - 1))
def test_the_first_line_towards_the_nearest_target_shortens_the_way_by_its_cost(position, seed):
    board, built, seat, sources = position
    network = reach(board, built, seat, sources)
    targets = random.Random(seed).sample(range(len(board.points)), 3)
    line = first_line_towards(board, built, seat, network, targets)
    outside = set(targets) - network  # the targets still to reach
    before = plain_distances(board, built, seat, dict.fromkeys(network, 0))
    nearest = min((before[t] for t in outside), default=INFINITY)
    if line is None:
        assert nearest == INFINITY
        return
    assert line not in built
    a, b, cost = board.lines[line]
    assert a in network or b in network
    # It leads on a cheapest way to a nearest target: from its far end, the rest of the
    # way costs exactly what is left.
    beyond = b if a in network else a
    assert before[beyond] == cost
    rest = plain_distances(board, built, seat, {beyond: 0})
    assert any(cost + rest[t] == nearest for t in outside)


@SETTINGS
@given(positions, st.integers(0, 10))
def test_a_sweep_reaches_just_the_points_within_its_limit(position, most):
    board, built, seat, sources = position
    expected = plain_distances(board, built, seat, dict.fromkeys(sources, 0))
    dist = [INFINITY] * len(board.points)
    for point in sources:
        dist[point] = 0
    found = sweep(dist, cost_graph(board, built, seat), sources, 2 * most, None, most)
    assert sorted(found) == [p for p, d in enumerate(expected) if d <= most]
    assert [expected[p] for p in found] == sorted(expected[p] for p in found)  # nearest first
    for point in found:
        assert dist[point] == expected[point]
    # With what each point must still pay ahead of it, fewer are reached, never more.
    ahead = [point % 3 for point in range(len(board.points))]
    dist = [INFINITY] * len(board.points)
    for point in sources:
        dist[point] = 0
    guided = sweep(dist, cost_graph(board, built, seat), sources, most, ahead)
    assert all(dist[p] + ahead[p] <= most and dist[p] >= expected[p] for p in guided)


def test_the_adjacency_is_the_boards_lines_and_is_built_once():
    for name in rules.BOARD_NAMES:
        board = rules.get_board(name)
        edges = adjacency(board)
        assert edges is adjacency(board)
        assert sum(len(point) for point in edges) == 2 * len(board.lines)
        for point, lines in enumerate(edges):
            for other, line, cost in lines:
                assert {point, other} == set(board.lines[line][:2])
                assert cost == board.lines[line][2]


def test_ties_go_to_the_lowest_numbered_points():
    """(10,6) to (12,7): two flat lines through (11,6) or through (11,7), equally cheap.
    The way through the lower-numbered point is taken, whatever the order of sources."""
    board = rules.get_board("transamerica")
    index = board.point_index
    source, far = index[(10, 6)], index[(12, 7)]
    middles = sorted((index[(11, 6)], index[(11, 7)]))
    for sources in ([source], [index[(0, 0)], source], [source, index[(0, 0)]]):
        dist, via = cheapest_paths(board, {}, 0, sources)
        assert dist[far] == 2 and all(dist[m] == 1 for m in middles)
        assert via[far] == board.line_index[(middles[0], far)]


@SETTINGS
@given(positions, st.booleans())
def test_a_cost_graph_is_each_points_lines_as_the_seat_counts_them(position, cross_coloured):
    """Line by line from the board, in line order; and each graph is the caller's own
    (the bare board's lists are shared behind it)."""
    board, built, seat, _sources = position
    expected = [[] for _ in board.points]
    for line, (a, b, _cost) in enumerate(board.lines):
        cost = line_cost(board, built, seat, line, cross_coloured=cross_coloured)
        if cost is not None:
            expected[a].append((b, cost))
            expected[b].append((a, cost))
    graph = cost_graph(board, built, seat, cross_coloured=cross_coloured)
    assert graph == expected
    for edges in graph:
        edges.clear()
    assert cost_graph(board, built, seat, cross_coloured=cross_coloured) == expected
    assert cost_graph(board, {}, seat) == cost_graph(board, {}, seat, cross_coloured=True)
