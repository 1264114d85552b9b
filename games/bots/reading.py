"""Reading the table: which cities the others probably hold, from public facts only.

A player who starts on a city almost always holds it, and picks the one of their five
cheapest to join to the other four; after that most build towards their nearest city not
yet joined. So each hand an opponent could hold is weighed by how well it explains what
they did, and hands are drawn from those weights; nothing here looks at a hidden hand.
"""

from __future__ import annotations

import itertools
import random
from functools import cache

from games import rules

# Not zero: people do not always head for their nearest city.
UNEXPLAINED = 0.05
# The most hands weighed per opponent, else a random selection.
MAX_HANDS = 2000
# Draws of a whole table before giving up on keeping the hands apart (the last is used).
TABLE_DRAWS = 50


def sample_tables(state: rules.GameState, seat: int, rng: random.Random, count: int) -> list[list]:
    """``count`` guesses at every seat's cities, as lists of points per seat; ``seat``'s
    own are its real ones."""
    board = state.board
    mine = [board.city_point(name) for name in state.hands[seat]]
    weighed = {
        other: weigh_hands(state, seat, other, rng)
        for other in range(state.seat_count)
        if other != seat
    }
    # Summed once: ``choices`` would sum the weights at every draw.
    summed = {
        other: list(itertools.accumulate(weights)) for other, (_h, weights) in weighed.items()
    }
    tables = []
    for _ in range(count):
        for _draw in range(TABLE_DRAWS):
            table = [
                mine
                if other == seat
                else list(rng.choices(weighed[other][0], cum_weights=summed[other])[0])
                for other in range(state.seat_count)
            ]
            points = [point for hand in table for point in hand]
            if len(points) == len(set(points)):
                break  # no city twice; else draw the table again
        tables.append(table)
    return tables


def weigh_hands(
    state: rules.GameState, seat: int, other: int, rng: random.Random
) -> tuple[list[tuple[int, ...]], list[float]]:
    """The hands ``other`` could hold (as city points, one per colour) and their weights."""
    board = state.board
    n = state.seat_count
    mine = set(state.hands[seat])
    start = state.start_point(other)
    start_city = board.city_at.get(start) if start is not None else None
    if start_city is not None and start_city.name in mine:
        start_city = None
    # Another opponent's start city is theirs (see above), so it is not in this hand.
    elsewhere = {state.start_point(s) for s in range(n) if s not in (seat, other)} - {None}
    choices: list[list[int]] = []
    for colour in rules.COLOURS:
        if start is not None and start_city is not None and start_city.colour == colour:
            choices.append([start])
            continue
        choices.append(
            [
                point
                for city in board.cities_of(colour, n)
                if city.name not in mine and (point := board.city_point(city.name)) not in elsewhere
            ]
        )
    hands = list(itertools.product(*choices))
    if len(hands) > MAX_HANDS:
        hands = rng.sample(hands, MAX_HANDS)
    weights = [1.0] * len(hands)
    if start is not None:
        if start_city is not None:
            _weigh_start(board, start, hands, weights)
        _weigh_lines(state, other, start, hands, weights)
    return hands, weights


def _weigh_start(board: rules.Board, start: int, hands: list, weights: list[float]) -> None:
    """A start on a city: the hand's city cheapest to join to its other four."""
    apart = city_distances(board.name)
    own_row = apart[start].__getitem__
    for i, hand in enumerate(hands):
        own = sum(map(own_row, hand))
        if any(sum(map(apart[c].__getitem__, hand)) < own for c in hand if c != start):
            weights[i] *= UNEXPLAINED


def _weigh_lines(
    state: rules.GameState, other: int, start: int, hands: list, weights: list[float]
) -> None:
    """Each line ``other`` built this round: on a cheapest way to its nearest city."""
    board = state.board
    built: dict = {}
    last: tuple[int, list[int]] = (-1, [])  # the track (by its number of lines) and its distances
    for line, track in state.built.items():
        if track.seat == other:
            # Two lines of one turn: the first one's "after" is the second one's "before".
            same = last[0] == len(built)
            graph = rules.cost_graph(board, built, other)
            before = last[1] if same else rules.distances(graph, [start])
            # The line only shortens ways, none beyond the farthest point reached now.
            farthest = max(value for value in before if value < rules.INFINITY)
            after = rules.lowered(board, graph, before, [line], farthest)
            last = (len(built) + 1, after)
            # Points ranked once by (distance, point): a hand's nearest is its lowest rank.

            ahead = sorted((before[p], p) for p in range(len(before)) if before[p] > 0)
            rank = [len(ahead)] * len(before)  # past every rank: joined already
            for place, (_dist, point) in enumerate(ahead):
                rank[point] = place
            missed = [after[point] >= dist for dist, point in ahead] + [True]
            for i, hand in enumerate(hands):
                if missed[min(map(rank.__getitem__, hand))]:
                    weights[i] *= UNEXPLAINED
        built[line] = track


@cache
def city_distances(board_name: str) -> dict[int, dict[int, int]]:
    """Cheapest distances between the board's cities with no track built."""
    board = rules.get_board(board_name)
    graph = rules.cost_graph(board, {}, 0)
    points = sorted({board.city_point(city.name) for city in board.cities})
    apart = {}
    for a in points:
        dist = rules.distances(graph, [a])
        apart[a] = {b: dist[b] for b in points}
    return apart
