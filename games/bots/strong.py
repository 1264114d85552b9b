"""The strong bot: exact scoring, and every choice played out to the round's end.

A round is scored when the first player joins their cities, so a move is judged by where
it leaves everyone then: for guesses at the others' cities (``reading``) the round is
played out (``rollout``), and the move that leaves the seat least to build, less half of
what the others then miss, wins. Help to the others is measured on public facts only.

It never reads another seat's hand (``own_view``), and its guesses are seeded with public
facts, so the same position gets the same move.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

from games import rules

from . import rollout
from .ideas import Idea, describe
from .reading import sample_tables

# Plans and starts played out, and guesses each: sized by benchmarks/bench_bots.py.
CANDIDATES = 8
TABLES = 6
STARTS = 6
START_TABLES = 6
# One guess is a noisy judge: the close calls between the best get the spare guesses.
FIRST_SHARE = 2
CONTENDERS = 3
# Public help a line must give before the bot spends a coloured track on it.
COLOUR_WHEN_HELP_AT_LEAST = 3
# Suggestions: at most this many of the three head for the same city.
SAME_CITY_AT_MOST = 2
# Help counts a city's distance up to this many track points.
FAR = 40


def own_view(state: rules.GameState, seat: int) -> rules.GameState:
    """A copy of ``state`` holding only what ``seat`` may see: other hands are emptied."""
    view = state.copy()
    view.hands = [hand if other == seat else () for other, hand in enumerate(state.hands)]
    return view


def strong_move(
    state: rules.GameState,
    seat: int,
    *,
    starts: int = STARTS,
    candidates: int = CANDIDATES,
    tables: int = TABLES,
) -> rules.Move:
    """The strong bot's move for ``seat`` (the keywords are for trials)."""
    view = own_view(state, seat)
    if view.phase == rules.PLACING:
        point = starts_played_out(view, seat, start_tables(view, seat), starts)[0]
        return rules.PlaceStart(view.board.points[point])
    plans = candidate_plans(view, seat, Costs(view, seat))
    if not plans:
        return rules.Pass()
    helper = Help(view, seat)
    best = next(ranked_plans(view, seat, plans, helper, candidates, tables))
    return _as_move(view, seat, best.lines, helper)


def starts_played_out(
    state: rules.GameState, seat: int, tables: rules.SteinerTables, count: int = STARTS
) -> list[int]:
    """The ``count`` cheapest starts, best first once played out (``tables``: the seat's
    ``start_tables``)."""
    points = ranked_starts(state, seat, tables)[:count]
    if len(points) < 2:
        return points
    rng = random.Random(repr((state.round, seat, tuple(state.starts))))
    return narrowed(
        points,
        lambda point, guesses: rollout.start_worth(state, seat, point, guesses),
        lambda count: sample_tables(state, seat, rng, count),
        START_TABLES,
    )


def strong_suggestions(state: rules.GameState, seat: int, count: int = 3) -> list[Idea]:
    """Up to ``count`` different ideas for ``seat``, the bot's own choice first: what a
    player is offered to play with one tap."""
    view = own_view(state, seat)
    if view.phase == rules.PLACING:
        board = view.board
        # The tables the starts are ranked by tell how far each leaves the cities.
        tables = start_tables(view, seat)
        return [
            Idea(rules.PlaceStart(board.points[point]), left=tables.cost_with_point(point))
            for point in starts_played_out(view, seat, tables)[:count]
        ]
    # The costs now: what the candidates are weighed against, and the ideas too.
    now = Costs(view, seat)
    plans = candidate_plans(view, seat, now)
    if not plans:
        return [Idea(rules.Pass())]
    helper = Help(view, seat)
    picked: list[Idea] = []
    used: set[int] = set()
    for plan in ranked_plans(view, seat, plans, helper):
        if used & set(plan.lines):
            continue
        if picked and (plan.missing, plan.own) >= (now.missing, now.own):
            break  # an idea that brings nothing closer is no idea (the rest bring none)
        idea = describe(view, seat, plan.lines, _as_move(view, seat, plan.lines, helper))
        city = idea.heads_for
        if city and sum(other.heads_for == city for other in picked) >= SAME_CITY_AT_MOST:
            continue
        picked.append(idea)
        used |= set(plan.lines)
        if len(picked) == count:
            break
    return picked


Choice = TypeVar("Choice")


def narrowed(
    choices: Sequence[Choice],
    worth: Callable[[Choice, list], float],
    draw: Callable[[int], list],
    tables: int,
) -> list[Choice]:
    """``choices``, best first: all judged on some guesses, the best few on more, for the
    same rounds played out in all."""
    first = max(1, tables // FIRST_SHARE)
    keep = min(CONTENDERS, len(choices))
    spare = (tables - first) * len(choices) // keep if keep else 0
    guesses = draw(first + spare)
    early, late = guesses[:first], guesses[first:]
    score = {i: worth(choice, early) for i, choice in enumerate(choices)}
    order = sorted(score, key=score.__getitem__)
    if late and len(choices) > 1:
        for i in order[:keep]:
            more = worth(choices[i], late)
            score[i] = (score[i] * first + more * len(late)) / (first + len(late))
        order = sorted(order[:keep], key=score.__getitem__) + order[keep:]
    return [choices[i] for i in order]


# --- the start marker -------------------------------------------------------------


def start_tables(state: rules.GameState, seat: int) -> rules.SteinerTables:
    """The Steiner tables of the seat's cities on its scoring graph: what a start on each
    point would leave to build."""
    board = state.board
    cities = [board.city_point(name) for name in state.hands[seat]]
    return rules.SteinerTables(rules.scoring_graph(state, seat), cities)


def ranked_starts(state: rules.GameState, seat: int, tables: rules.SteinerTables) -> list[int]:
    """The free points, cheapest to join the seat's cities first (``tables``: the seat's
    ``start_tables``)."""
    board = state.board
    taken = {p for p in state.starts if p is not None}
    own = {board.city_point(name) for name in state.hands[seat]}
    free = [p for p in range(len(board.points)) if p not in taken]
    return sorted(free, key=lambda p: (tables.cost_with_point(p), p not in own, p))


# --- building ---------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """A candidate turn: line ids in build order, and the costs it leaves."""

    lines: tuple[int, ...]
    missing: int  # the seat's missing cost after the turn (what scoring counts)
    own: int  # the same, with its start marker as one more terminal (what it must build)


def ranked_plans(
    state: rules.GameState,
    seat: int,
    plans: list[Plan],
    helper: Help,
    candidates: int = CANDIDATES,
    tables: int = TABLES,
) -> Iterator[Plan]:
    """``plans``, best first; lazy, since the tail is rarely read."""
    chosen = best_plans(plans, helper, candidates)
    best = chosen[0]
    if best.missing > 0 and len(chosen) > 1:
        rng = random.Random(repr((state.round, seat, tuple(state.built))))
        # The same lines in another order leave the same track: played out once.
        known: dict = {}
        chosen = narrowed(
            chosen,
            lambda plan, guesses: rollout.worth(state, seat, plan.lines, guesses, known),
            lambda count: sample_tables(state, seat, rng, count),
            tables,
        )
    yield from chosen
    seen = set(chosen)
    groups: dict[tuple[int, int], list[Plan]] = {}
    for plan in plans:
        if plan not in seen:
            groups.setdefault((plan.missing, plan.own), []).append(plan)
    for costs in sorted(groups):
        yield from sorted(
            groups[costs], key=lambda plan: (helper.of(plan.lines), len(plan.lines), plan.lines)
        )


def best_plans(plans: list[Plan], helper: Help, count: int) -> list[Plan]:
    """Up to ``count`` of the plans that lower the missing cost most, least help first."""
    best = min((plan.missing, plan.own) for plan in plans)
    tied = [plan for plan in plans if (plan.missing, plan.own) == best]
    tied.sort(key=lambda plan: (helper.of(plan.lines), len(plan.lines), plan.lines))
    return tied[:count]


def candidate_plans(state: rules.GameState, seat: int, now: Costs) -> list[Plan]:
    """Every useful turn: each single line, and each pair whose first line helps
    (``now``: the seat's ``Costs`` in ``state``)."""
    singles = [Plan((line,), *now.with_line(line)) for line in rules.legal_line_ids(state, seat)]
    plans = list(singles)
    # A pair that lowers the cost by 2 has each line on a cheapest tree, so each helps
    # alone: pairs whose first line helps nothing need not be tried.
    for first in singles:
        line = first.lines[0]
        if (first.missing, first.own) >= (now.missing, now.own):
            continue
        seconds = rules.legal_second_line_ids(state, seat, line, coloured=False)
        if not seconds:
            continue  # a double line, or the line ends the round
        scratch = state.copy()
        scratch.built[line] = rules.Track(seat, False)
        scratch.supply_left -= 1
        after = Costs(scratch, seat)
        for second in seconds:
            missing, own = after.with_line(second)
            if (missing, own) < (first.missing, first.own):
                plans.append(Plan((line, second), missing, own))
    return plans


class Costs:
    """The seat's missing cost, with and without its start marker, after one more line."""

    def __init__(self, state: rules.GameState, seat: int):
        self.state = state
        terminals = state.terminals(seat)
        start = state.start_point(seat)
        graph = rules.scoring_graph(state, seat)
        self.scoring = rules.SteinerTables(graph, terminals)
        if start is None or start in terminals:
            self.building = self.scoring
        else:
            self.building = rules.SteinerTables(graph, [*terminals, start])
        self.missing = self.scoring.cost
        self.own = self.building.cost

    def with_line(self, line: int) -> tuple[int, int]:
        a, b, _cost = self.state.board.lines[line]
        return self.scoring.cost_with_line(a, b), self.building.cost_with_line(a, b)


class Help:
    """How much a move would help the others, on public facts only."""

    def __init__(self, state: rules.GameState, seat: int):
        self.state = state
        self.seat = seat
        board = state.board
        mine = set(state.hands[seat])
        self.possible = [
            board.city_point(city.name)
            for colour in rules.COLOURS
            for city in board.cities_of(colour, state.seat_count)
            if city.name not in mine
        ]
        self.opponents = [
            other
            for other in range(state.seat_count)
            if other != seat and state.start_point(other) is not None
        ]
        # Each opponent's graph and distances now: a move's lines only shorten them.
        self.now = {}
        for other in self.opponents:
            graph = rules.cost_graph(board, state.built, other)
            self.now[other] = (graph, rules.distances(graph, rules.network(state, other)))
        self.before = {other: self._reach(self.now[other][1]) for other in self.opponents}
        # The same plan is weighed when ranked, chosen and coloured: worked out once.
        self._known: dict[tuple[int, ...], int] = {}

    def _reach(self, dist: list[int]) -> int:
        """Sum of the distances to the possible cities (each counted up to ``FAR``)."""
        return sum(min(dist[p], FAR) for p in self.possible)

    def of(self, lines: tuple[int, ...]) -> int:
        """Total shortening over opponents if ``lines`` are built (as black track)."""
        if not self.opponents:
            return 0
        if lines not in self._known:
            self._known[lines] = self._work_out(lines)
        return self._known[lines]

    def _work_out(self, lines: tuple[int, ...]) -> int:
        board = self.state.board
        total = 0
        for other in self.opponents:
            graph, dist = self.now[other]
            total += self.before[other] - self._reach(rules.lowered(board, graph, dist, lines, FAR))
        return total


def _as_move(
    state: rules.GameState, seat: int, lines: tuple[int, ...], helper: Help
) -> rules.Build:
    """The plan as a move, with coloured track where it denies the others real help."""
    board = state.board
    coloured: set[int] = set()
    if state.options.exclusive_tracks and state.exclusive_left[seat]:
        scratch = state.copy()
        for i, line in enumerate(lines):
            if (
                rules.may_colour(scratch, seat, board.line_points(line))
                and helper.of((line,)) >= COLOUR_WHEN_HELP_AT_LEAST
            ):
                coloured.add(i)
                scratch.exclusive_left[seat] -= 1
            scratch.built[line] = rules.Track(seat, i in coloured)
    return rules.Build(tuple(board.line_points(line) for line in lines), frozenset(coloured))
