"""Strategies published with other TransAmerica and TransEuropa programs, as sparring
partners for the strong bot: the tournament seats them (``manage.py tournament``), players
never meet them.

- ``central_move``: the start marker on the free point nearest the middle of the board
  (the least summed distance to every city in play), then the nearest city first.
- ``merging_move``: the usual start, then track first towards the nearest network of
  another player that is close (their track is free to use once joined), then the nearest
  city first.
- ``optimiser_move``: the start and every turn chosen by exact scoring alone (the fewest
  track points still missing after the turn), with no reading of the others.

Each is a player like the built-in bots: it reads only what its seat may see.
"""

from __future__ import annotations

from functools import cache

from games import rules

from .greedy import choose_start, greedy_move
from .strong import (
    Costs,
    Help,
    best_plans,
    candidate_plans,
    own_view,
    ranked_starts,
    start_tables,
)

# How far (in track points) another network may be for ``merging_move`` to head there first.
MERGE_WITHIN = 4


@cache
def _centrality(board_name: str, seat_count: int) -> list[int]:
    """Each point's summed distance to every city in play with no track built."""
    board = rules.get_board(board_name)
    graph = rules.cost_graph(board, {}, 0)
    totals = [0] * len(board.points)
    for colour in rules.COLOURS:
        for city in board.cities_of(colour, seat_count):
            for point, dist in enumerate(rules.distances(graph, [board.city_point(city.name)])):
                totals[point] += dist
    return totals


def central_move(state: rules.GameState, seat: int) -> rules.Move:
    """A start in the middle of the board; then as the greedy bot."""
    view = own_view(state, seat)
    if view.phase == rules.PLACING:
        totals = _centrality(view.board.name, view.seat_count)
        taken = set(view.starts)
        point = min((p for p in range(len(totals)) if p not in taken), key=lambda p: (totals[p], p))
        return rules.PlaceStart(view.board.points[point])
    return greedy_move(view, seat)


def merging_move(state: rules.GameState, seat: int) -> rules.Move:
    """Join a close network of another player first; else as the greedy bot."""
    view = own_view(state, seat)
    if view.phase == rules.PLACING:
        return rules.PlaceStart(view.board.points[choose_start(view, seat)])
    board = view.board
    mine = rules.network(view, seat)
    theirs: set[int] = set()
    for other in range(view.seat_count):
        if other != seat and view.start_point(other) is not None:
            theirs |= rules.network(view, other)
    theirs -= mine
    if theirs:
        graph = rules.cost_graph(board, view.built, seat)
        dist = rules.distances(graph, mine)
        if min(dist[p] for p in theirs) <= MERGE_WITHIN:
            line = rules.first_line_towards(board, view.built, seat, mine, theirs)
            if line is not None:
                return rules.Build((board.line_points(line),))
    return greedy_move(view, seat)


def optimiser_move(state: rules.GameState, seat: int) -> rules.Move:
    """The start and the turn that leave the fewest track points to build, and nothing else."""
    view = own_view(state, seat)
    if view.phase == rules.PLACING:
        return rules.PlaceStart(
            view.board.points[ranked_starts(view, seat, start_tables(view, seat))[0]]
        )
    plans = candidate_plans(view, seat, Costs(view, seat))
    if not plans:
        return rules.Pass()
    best = best_plans(plans, Help(view, seat), 1)[0]
    return rules.Build(tuple(board_line for board_line in map(view.board.line_points, best.lines)))


# The line-ups the tournament checks the strong bot against: three of one strategy.
PUBLISHED = {
    "central": central_move,
    "merging": merging_move,
    "optimiser": optimiser_move,
}
