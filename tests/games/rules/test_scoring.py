import heapq
import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games import rules
from games.bots import simulate
from games.rules.graph import INFINITY
from games.rules.scoring import apart_by_free_track, known_tree_cost, steiner_cost, steiner_costs
from games.rules.turns import score_round

from .positions import (
    TA_HAND_A,
    TA_HAND_B,
    build,
    cheapest_path,
    hand_tree,
    new_round,
    with_track,
)

KNOWN_HAND = ["San Diego", "Dallas", "St. Louis", "Cincinnati", "Washington"]


def test_known_hand_on_an_empty_transamerica_board_costs_19():
    # San Diego is dashed: a four-player game.
    others = [
        ["Portland", "Helena", "Salt Lake City", "Phoenix", "New York"],
        ["Sacramento", "Minneapolis", "Omaha", "El Paso", "Charleston"],
        ["Medford", "Chicago", "Santa Fe", "Memphis", "Boston"],
    ]
    state = new_round([KNOWN_HAND, *others])
    assert rules.missing_cost(state, 0) == 19


def test_built_track_is_free():
    state = new_round([TA_HAND_A, TA_HAND_B], starts=[(10, 6), (3, 1)])
    before = rules.missing_cost(state, 0)
    path = cheapest_path(state, "Dallas", "St. Louis")
    cost = sum(state.board.lines[state.board.line_id(line)][2] for line in path)
    after = rules.missing_cost(with_track(state, path, seat=1), 0)
    assert after < before
    assert after >= before - cost


def test_joined_cities_cost_nothing():
    state = new_round([TA_HAND_A, TA_HAND_B], starts=[(10, 6), (3, 1)])
    state = with_track(state, hand_tree(state, TA_HAND_B), seat=0)
    assert rules.missing_cost(state, 1) == 0


def test_the_strict_reading_also_joins_the_start_marker():
    far = (16, 1)  # the north-east corner, far from hand A
    loose = new_round([TA_HAND_A, TA_HAND_B], starts=[far, (3, 1)])
    strict = new_round(
        [TA_HAND_A, TA_HAND_B],
        options=rules.Options(cities_must_join_start=True),
        starts=[far, (3, 1)],
    )
    assert rules.missing_cost(strict, 0) > rules.missing_cost(loose, 0)
    # A marker on one of the cities adds nothing.
    on_city = new_round(
        [TA_HAND_A, TA_HAND_B],
        options=rules.Options(cities_must_join_start=True),
        starts=[(13, 10), (3, 1)],  # Dallas
    )
    assert rules.missing_cost(on_city, 0) == rules.missing_cost(loose, 0)


def test_scoring_a_round_takes_the_losses_from_the_scores():
    state = new_round([TA_HAND_A, TA_HAND_B], starts=[(10, 6), (3, 1)])
    state = build(state, 0, ((10, 6), (11, 6)))
    scored = score_round(state)
    losses = [rules.missing_cost(state, 0), rules.missing_cost(state, 1)]
    assert scored["losses"] == losses
    assert scored["scores"] == [13 - losses[0], 13 - losses[1]]


# --- exactness against brute force on small graphs ------------------------------------


def brute_force_steiner(size, edges, terminals):
    """Cheapest tree joining ``terminals``: try every set of extra points, take the
    minimum spanning tree of what they induce (Kruskal)."""
    others = [v for v in range(size) if v not in terminals]
    best = None
    for count in range(len(others) + 1):
        for extra in itertools.combinations(others, count):
            nodes = set(terminals) | set(extra)
            parent = {v: v for v in nodes}

            def find(v, parent=parent):
                while parent[v] != v:
                    v = parent[v]
                return v

            total = 0
            for cost, a, b in sorted((c, a, b) for a, b, c in edges if a in nodes and b in nodes):
                ra, rb = find(a), find(b)
                if ra != rb:
                    parent[ra] = rb
                    total += cost
            if len({find(v) for v in nodes}) == 1 and (best is None or total < best):
                best = total
    return best


@st.composite
def small_graphs(draw):
    size = draw(st.integers(min_value=2, max_value=8))
    pairs = [(a, b) for a in range(size) for b in range(a + 1, size)]
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=14))
    edges = [(a, b, draw(st.sampled_from([0, 1, 2]))) for a, b in chosen]
    terminals = draw(
        st.lists(st.integers(0, size - 1), min_size=1, max_size=min(size, 6), unique=True)
    )
    return size, edges, terminals


@settings(max_examples=300, deadline=None)
@given(small_graphs())
def test_steiner_cost_is_exact(case):
    size, edges, terminals = case
    graph = [[] for _ in range(size)]
    for a, b, cost in edges:
        graph[a].append((b, cost))
        graph[b].append((a, cost))
    assert steiner_cost(graph, terminals) == brute_force_steiner(size, edges, terminals)


@settings(max_examples=100, deadline=None)
@given(small_graphs(), st.lists(st.integers(0, 7), min_size=1, max_size=6))
def test_steiner_costs_in_one_graph_are_each_sets_own(case, more):
    size, edges, terminals = case
    graph = [[] for _ in range(size)]
    for a, b, cost in edges:
        graph[a].append((b, cost))
        graph[b].append((a, cost))
    sets = [terminals, [p % size for p in more], terminals[::-1]]
    assert steiner_costs(graph, sets) == [brute_force_steiner(size, edges, p) for p in sets]


# --- the tables behind the bots' what-ifs ----------------------------------------------


def test_steiner_tables_give_the_exact_cost_with_any_one_line_free():
    """Positions of a game with coloured track: the cost with one more line built, from
    the tables, is what scoring counts once it is built."""
    events = simulate("transeuropa", 4, random.Random(5), rules.Options(exclusive_tracks=3))
    checked = 0
    for cut in (25, 60, 100):
        state = rules.replay(events[:cut])
        seat = state.seat_to_move
        tables = rules.SteinerTables(rules.scoring_graph(state, seat), state.terminals(seat))
        assert tables.cost == rules.missing_cost(state, seat)
        for line, (a, b, _cost) in enumerate(state.board.lines):
            if line in state.built or line % 7:
                continue
            scratch = state.copy()
            scratch.built[line] = rules.Track(seat, False)
            assert tables.cost_with_line(a, b) == rules.missing_cost(scratch, seat)
            checked += 1
    assert checked > 150


def test_steiner_tables_give_the_exact_cost_with_a_start_at_any_point():
    strict = rules.Options(cities_must_join_start=True)
    state = new_round([TA_HAND_A, TA_HAND_B], options=strict)
    cities = state.terminals(0)
    tables = rules.SteinerTables(rules.scoring_graph(state, 0), cities, everywhere=True)
    for point in range(0, len(state.board.points), 5):
        scratch = state.copy()
        scratch.starts = [point, None]
        assert tables.cost_with_point(point) == rules.missing_cost(scratch, 0)


def random_track(board, seats, options, rng, most, coloured_share):
    """A dealt round with up to ``most`` random lines of anyone's track (coloured at
    ``coloured_share``) and random start markers: not a legal position, nor need it be."""
    state = rules.replay([rules.game_created(board, seats, options)])
    state = rules.apply(state, rules.round_started(state, rules.deal(board, seats, rng)))
    lines = range(len(state.board.lines))
    state.built = {
        line: rules.Track(rng.randrange(seats), rng.random() < coloured_share)
        for line in rng.sample(lines, rng.randrange(0, most))
    }
    state.starts = [rng.randrange(len(state.board.points)) for _ in range(seats)]
    return state


@settings(max_examples=30, deadline=None)
@given(
    board=st.sampled_from(rules.BOARD_NAMES),
    seed=st.integers(0, 2**32 - 1),
    strict=st.booleans(),
)
def test_scoring_agrees_with_the_whole_tables_on_random_positions(board, seed, strict):
    """steiner_cost sweeps only where a cheaper tree could be; SteinerTables keeps every
    value. On random track (black and coloured, anyone's) they agree. ``missing_costs``
    (one graph for the seats with no coloured track of their own) is each seat's own, with
    that track and with the same track all black."""
    options = rules.Options(exclusive_tracks=3, cities_must_join_start=strict)
    state = random_track(board, 4, options, random.Random(seed), 120, 0.2)
    graph = rules.scoring_graph(state, 0)
    *cities, last = list(dict.fromkeys(state.terminals(0)))
    whole = rules.SteinerTables(graph, cities, everywhere=True).cost_with_point(last)
    assert rules.missing_cost(state, 0) == steiner_cost(graph, [*cities, last]) == whole
    black = state.copy()
    black.built = {line: rules.Track(track.seat, False) for line, track in state.built.items()}
    for position in (state, black):
        expected = [rules.missing_cost(position, seat) for seat in range(4)]
        assert rules.missing_costs(position) == expected


# --- exactness against plain Dreyfus-Wagner on positions of both boards -----------------


def plain_dreyfus_wagner(size, edges, terminals):
    """The cheapest tree joining ``terminals``: Dreyfus-Wagner over every set of them and
    every point, nothing pruned and no bound, each growth a heap Dijkstra. Slow and
    plainly exact; None when they cannot be joined."""
    neighbours = [[] for _ in range(size)]
    for a, b, cost in edges:
        neighbours[a].append((b, cost))
        neighbours[b].append((a, cost))

    def grow(start):
        dist = list(start)
        heap = [(value, point) for point, value in enumerate(dist) if value < INFINITY]
        heapq.heapify(heap)
        while heap:
            value, point = heapq.heappop(heap)
            if value > dist[point]:
                continue
            for other, cost in neighbours[point]:
                if value + cost < dist[other]:
                    dist[other] = value + cost
                    heapq.heappush(heap, (value + cost, other))
        return dist

    terminals = list(dict.fromkeys(terminals))
    full = (1 << len(terminals)) - 1
    tables = {}
    for mask in range(1, full + 1):
        start = [INFINITY] * size
        if mask & (mask - 1) == 0:
            start[terminals[mask.bit_length() - 1]] = 0
        else:
            for sub in range(1, mask):
                if sub & mask == sub:
                    rest = tables[sub], tables[mask ^ sub]
                    start = [min(s, a + b) for s, a, b in zip(start, *rest, strict=True)]
        tables[mask] = grow(start)
    best = tables[full][terminals[0]]
    return None if best >= INFINITY else best


def seat_edges(board, built, seat, *, cross_coloured=False):
    """The board's lines as ``seat`` counts them, straight from the rules: usable track
    free, another seat's coloured line closed (or, crossing, at its building cost)."""
    edges = []
    for line, (a, b, cost) in enumerate(board.lines):
        track = built.get(line)
        if track is not None and (not track.exclusive or track.seat == seat):
            cost = 0
        elif track is not None and not cross_coloured:
            continue
        edges.append((a, b, cost))
    return edges


def test_scoring_is_plain_dreyfus_wagner_on_positions_with_track():
    """Random hands under the strict reading (five cities and a start marker) on random
    track: black and coloured, of several seats, often beside the cities. The quick tree
    is often not the cheapest there, so any pruning of the search that cut away a part
    of a cheaper tree would show."""
    improved = 0
    for seed in range(64):
        rng = random.Random(seed)
        board = rules.BOARD_NAMES[seed % 2]
        seats = 3 + seed % 4
        options = rules.Options(exclusive_tracks=3, cities_must_join_start=True)
        state = rules.replay([rules.game_created(board, seats, options)])
        state = rules.apply(state, rules.round_started(state, rules.deal(board, seats, rng)))
        lines = range(len(state.board.lines))
        state.built = {
            line: rules.Track(rng.randrange(seats), rng.random() < 0.3)
            for line in rng.sample(lines, rng.randrange(0, 200))
        }
        state.starts = [rng.randrange(len(state.board.points)) for _ in range(seats)]
        seat = rng.randrange(seats)
        terminals = state.terminals(seat)
        size = len(state.board.points)
        expected = plain_dreyfus_wagner(size, seat_edges(state.board, state.built, seat), terminals)
        if expected is None:  # walled in: scored as if it built beside the coloured lines
            crossing = seat_edges(state.board, state.built, seat, cross_coloured=True)
            expected = plain_dreyfus_wagner(size, crossing, terminals)
        assert rules.missing_cost(state, seat) == expected, seed
        graph = rules.scoring_graph(state, seat)
        joined = apart_by_free_track(graph, terminals)
        apart = [rules.distances(graph, [point]) for point in joined]
        improved += known_tree_cost(graph, apart, joined) > expected
    assert improved >= 8  # the search, not the quick tree, found these
