"""The strong bot: exact scoring, every turn, and a look at what the others will do.

It places its start marker where its five cities are cheapest to join (on a city of its
hand or on a Steiner point), and builds the line or pair of lines that lowers its own
missing cost the most, computed exactly (see ``scoring.SteinerTables``). Most turns many
moves lower it equally. It then looks ahead: track is shared, so what matters is what the
others build next. Each of the best moves is played out against the others' next turns,
for several guesses at their cities read from their track (``reading``, ``lookahead``),
and the move that leaves the seat least to build wins; moves that tie go to the one that
helps the others least.

"Help" is measured on public facts only: for each opponent, how much the move shortens
the way from that opponent's network (start marker and the track joined to it) to the
cities that could be in their hand (every city in play but its own five). Under the
exclusive-track variant it builds a line in its colour when that line would otherwise help
the others markedly, which both denies it to them and bars their way.

The bot reads the board, the built track, the start markers and its own hand, never another
seat's hand: ``strong_move`` blanks them out before it looks (see ``own_view``).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from games import rules

from . import rollout
from .ideas import Idea, describe
from .lookahead import missing_after_replies
from .reading import sample_tables

# At most this many of the best plans are played out against the others' answers, each
# against this many guesses at their cities: enough to tell moves apart, and a move stays
# well under a second.
CANDIDATES = 8
TABLES = 8
# How far (in track points) an opponent's start marker must be before the bot stops
# caring: beyond this, a start is as good as any other.
FAR_ENOUGH = 8
# How much public help (summed shortened distance to possible cities, over opponents) a
# line must give before the bot spends a coloured track on it.
COLOUR_WHEN_HELP_AT_LEAST = 3
# Suggestions: at most this many of the three head for the same city.
SAME_CITY_AT_MOST = 2
# How the bot judges its candidates (see ``ranked_plans``).
TUNING: dict = {}


def own_view(state: rules.GameState, seat: int) -> rules.GameState:
    """A copy of ``state`` holding only what ``seat`` may see: other hands are emptied."""
    view = state.copy()
    view.hands = [hand if other == seat else () for other, hand in enumerate(state.hands)]
    return view


def strong_move(state: rules.GameState, seat: int, **tuning) -> rules.Move:
    """The strong bot's move for ``seat``, which must be the seat to move."""
    tuning = {**TUNING, **tuning}
    view = own_view(state, seat)
    if view.phase == rules.PLACING:
        starts = tuning.pop("starts", 0)
        if starts:
            return rules.PlaceStart(
                view.board.points[start_by_rollout(view, seat, starts, tuning.get("tables", 6))]
            )
        return rules.PlaceStart(view.board.points[choose_start(view, seat)])
    tuning.pop("starts", None)
    plans = candidate_plans(view, seat)
    if not plans:
        return rules.Pass()
    return _choose_among(view, seat, plans, Help(view, seat), **tuning)


def start_by_rollout(state: rules.GameState, seat: int, count: int, tables: int) -> int:
    """The best of the ``count`` cheapest starts, each played out over guesses."""
    points = ranked_starts(state, seat)[:count]
    rng = random.Random(repr((state.round, seat, tuple(state.starts))))
    guesses = sample_tables(state, seat, rng, tables)
    return min(points, key=lambda p: rollout.start_worth(state, seat, p, guesses))


def strong_suggestions(state: rules.GameState, seat: int, count: int = 3) -> list[Idea]:
    """Up to ``count`` of the strong bot's best different ideas for ``seat``, its own
    choice first: what a player may be offered to play with one tap. No two share a line,
    and at most two head for the same city. Deterministic for a position."""
    view = own_view(state, seat)
    if view.phase == rules.PLACING:
        board = view.board
        cities = [board.city_point(name) for name in view.hands[seat]]
        tables = rules.SteinerTables(rules.scoring_graph(view, seat), cities)
        return [
            Idea(rules.PlaceStart(board.points[point]), left=tables.cost_with_point(point))
            for point in ranked_starts(view, seat)[:count]
        ]
    plans = candidate_plans(view, seat)
    if not plans:
        return [Idea(rules.Pass())]
    helper = Help(view, seat)
    picked: list[Idea] = []
    used: set[int] = set()
    now = Costs(view, seat)
    for plan in ranked_plans(view, seat, plans, helper, **TUNING):
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


# --- the start marker -------------------------------------------------------------


def choose_start(state: rules.GameState, seat: int) -> int:
    """The free point where ``seat``'s cities are cheapest to join to it.

    Ties (under the usual reading, every point of a cheapest tree costs the same) go to
    the point farthest from the others' start markers, then to a city of the hand.
    """
    board = state.board
    graph = rules.scoring_graph(state, seat)
    cities = [board.city_point(name) for name in state.hands[seat]]
    tables = rules.SteinerTables(graph, cities)
    taken = {p for p in state.starts if p is not None}
    others = rules.distances(graph, taken) if taken else [FAR_ENOUGH] * len(board.points)
    own = set(cities)

    def key(point: int) -> tuple:
        return (
            tables.cost_with_point(point),
            -min(others[point], FAR_ENOUGH),
            point not in own,
            point,
        )

    return min((p for p in range(len(board.points)) if p not in taken), key=key)


def ranked_starts(state: rules.GameState, seat: int) -> list[int]:
    """The free points, best start first (the order ``choose_start`` picks from): the
    cheapest to join the seat's cities, each a city of the hand where it can be."""
    board = state.board
    graph = rules.scoring_graph(state, seat)
    cities = [board.city_point(name) for name in state.hands[seat]]
    tables = rules.SteinerTables(graph, cities)
    taken = {p for p in state.starts if p is not None}
    own = set(cities)
    free = [p for p in range(len(board.points)) if p not in taken]
    return sorted(free, key=lambda p: (tables.cost_with_point(p), p not in own, p))


# --- building ---------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """A candidate turn: line ids in build order, and the costs it leaves."""

    lines: tuple[int, ...]
    missing: int  # the seat's missing cost after the turn (what scoring counts)
    own: int  # the same, with its start marker as one more terminal (what it must build)


def choose_build(state: rules.GameState, seat: int) -> rules.Move:
    """The turn that leaves ``seat`` the least to build once the others have answered it.

    The plans that lower the missing cost most are the candidates; each is played out
    against guesses at the others' cities (see ``lookahead``), and ties go to the plan that
    helps the others least. A plan that joins the seat's cities ends the round: it is
    taken at once.
    """
    plans = candidate_plans(state, seat)
    if not plans:
        return rules.Pass()
    return _choose_among(state, seat, plans, Help(state, seat))


def _choose_among(
    state: rules.GameState, seat: int, plans: list[Plan], helper: Help, **tuning
) -> rules.Move:
    """``choose_build`` on plans and help already worked out."""
    best = next(ranked_plans(state, seat, plans, helper, **tuning))
    return _as_move(state, seat, best.lines, helper)


def ranked_plans(
    state: rules.GameState,
    seat: int,
    plans: list[Plan],
    helper: Help,
    judge: str = "replies",
    candidates: int = CANDIDATES,
    tables: int = TABLES,
    extra: int = 0,
    weight: float = rollout.OTHERS_WEIGHT,
) -> Iterator[Plan]:
    """``plans``, best first: the candidates (those that lower the missing cost most,
    helping the others least) in the bot's judgement, then the others by the cost they
    leave and the help they give (worked out only as far as they are read)."""
    chosen = best_plans(plans, helper, candidates)
    best = chosen[0]
    if extra:
        rest = sorted(
            (p for p in plans if (p.missing, p.own) > (best.missing, best.own)),
            key=lambda p: (p.missing, p.own, helper.of(p.lines), len(p.lines), p.lines),
        )
        chosen = chosen + rest[:extra]
    if best.missing > 0 and len(chosen) > 1:
        rng = random.Random(repr((state.round, seat, tuple(state.built))))
        guesses = sample_tables(state, seat, rng, tables)
        # The same lines in another order leave the same track, and the others answer the
        # same way to much the same track: ``known`` has each played out once.
        known: dict = {}
        if judge == "rollout":
            scores = {
                p: rollout.worth(state, seat, p.lines, guesses, known, weight) for p in chosen
            }
        else:
            scores = {
                p: missing_after_replies(state, seat, p.lines, guesses, known) for p in chosen
            }
        chosen = sorted(chosen, key=scores.__getitem__)  # stable: ties keep their order
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
    """Up to ``count`` of the plans that lower the missing cost most, those that help the
    others least first."""
    best = min((plan.missing, plan.own) for plan in plans)
    tied = [plan for plan in plans if (plan.missing, plan.own) == best]
    tied.sort(key=lambda plan: (helper.of(plan.lines), len(plan.lines), plan.lines))
    return tied[:count]


def candidate_plans(state: rules.GameState, seat: int) -> list[Plan]:
    """Every useful turn: each single line touching the network, and each pair whose first
    line lowers the missing cost (no pair can do better otherwise, see below)."""
    now = Costs(state, seat)
    singles = [Plan((line,), *now.with_line(line)) for line in rules.legal_line_ids(state, seat)]
    plans = list(singles)
    # A pair of flat lines can lower the cost by at most 2; if it does, each of its lines
    # lies on a cheapest tree, so it lowers the cost by 1 on its own. Pairs whose first line
    # lowers nothing cannot beat the best single line plus a useful second one.
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
    """The seat's missing cost, and its cost counting its start marker, with any one more
    line built."""

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
        self.before = {other: self._reach(state, other) for other in self.opponents}
        # The same plan is weighed when ranked, chosen and coloured: worked out once.
        self._known: dict[tuple[tuple[int, ...], frozenset[int]], int] = {}

    def _reach(self, state: rules.GameState, other: int) -> int:
        """Sum of the distances from ``other``'s network to the possible cities."""
        graph = rules.cost_graph(state.board, state.built, other)
        dist = rules.distances(graph, rules.network(state, other))
        return sum(min(dist[p], 40) for p in self.possible)

    def of(self, lines: tuple[int, ...], coloured: frozenset[int] = frozenset()) -> int:
        """Total shortening over opponents if ``lines`` are built (``coloured``: indexes of
        those built in the seat's colour)."""
        if not self.opponents:
            return 0
        key = (lines, coloured)
        if key not in self._known:
            self._known[key] = self._work_out(lines, coloured)
        return self._known[key]

    def _work_out(self, lines: tuple[int, ...], coloured: frozenset[int]) -> int:
        scratch = self.state.copy()
        for i, line in enumerate(lines):
            scratch.built[line] = rules.Track(self.seat, i in coloured)
        return sum(self.before[other] - self._reach(scratch, other) for other in self.opponents)


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
