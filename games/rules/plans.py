"""Build plans: a seat's standing order for its next turns, and the step it gives now.

``step`` is pure: the move the plan makes now, or a ``Stop`` saying why it ends. Coloured
track goes only on route lines the player marked so; nobody else's coloured track is used.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import IllegalMove
from .graph import INFINITY, cost_graph, distances, reach
from .moves import Build, Move, PlaceStart
from .network import network
from .state import BUILDING, PLACING, GameState, Track
from .turns import legal_line_ids, play

ROUTE = "route"
CITY = "city"
ALL = "all"
START = "start"  # start markers only: the plan is done once one is placed
FORMS = (ROUTE, CITY, ALL, START)

# Why a plan stops (codes; the edge words them for the player).
LINE_TAKEN = "line_taken"  # another seat built a line of the route
CHEAPER_WAY = "cheaper_way"  # others' track opened a cheaper way to the route's end
JOINED = "joined"  # the plan's target is joined (its route is built)
ROUND_ENDED = "round_ended"  # plans never carry over a deal
START_TAKEN = "start_taken"  # every planned start point holds another marker
START_NEEDED = "start_needed"  # the seat's start marker is its own to place
UNREACHABLE = "unreachable"  # the target cannot be reached (walled in)
BLOCKED = "blocked"  # the route's next line cannot be built now (a rule says no)
STOP_REASONS = (
    LINE_TAKEN,
    CHEAPER_WAY,
    JOINED,
    ROUND_ENDED,
    START_TAKEN,
    START_NEEDED,
    UNREACHABLE,
    BLOCKED,
)


@dataclass(frozen=True)
class Plan:
    """A seat's build plan, as the engine reads it. ``slack``: how much more a route cost
    than the cheapest way when set; it stops once others' track widens that (None: unchecked).
    """

    form: str
    round: int
    route: tuple[int, ...] = ()
    coloured: frozenset[int] = field(default_factory=frozenset)
    city: str | None = None
    starts: tuple[int, ...] = ()
    slack: int | None = None

    def __post_init__(self) -> None:
        if self.form not in FORMS:
            raise ValueError(f"unknown plan form {self.form!r}")
        if self.form == ROUTE and not self.route:
            raise ValueError("a route plan needs at least one line")
        if self.form == CITY and not self.city:
            raise ValueError("a plan toward a city needs the city")
        if self.form == START and not self.starts:
            raise ValueError("a start plan needs at least one point")
        object.__setattr__(self, "route", tuple(self.route))
        object.__setattr__(self, "coloured", frozenset(self.coloured))
        object.__setattr__(self, "starts", tuple(self.starts))


@dataclass(frozen=True)
class Stop:
    """Why a plan stops now (``reason``: one of ``STOP_REASONS``), with what it is about
    (``line``: a line id; ``rule``: the engine's rule code for ``BLOCKED``)."""

    reason: str
    line: int | None = None
    rule: str | None = None


def step(state: GameState, seat: int, plan: Plan) -> Move | Stop:
    """The move ``plan`` makes for ``seat``, whose turn it is, or why it stops."""
    if state.seat_to_move != seat:
        raise ValueError(f"it is not seat {seat}'s turn")
    if plan.round != state.round:
        return Stop(ROUND_ENDED)
    if state.phase == PLACING:
        if not plan.starts:
            return Stop(START_NEEDED)
        taken = set(state.starts)
        for point in plan.starts:
            if point not in taken:
                return PlaceStart(state.board.points[point])
        return Stop(START_TAKEN)
    if state.phase != BUILDING:
        return Stop(ROUND_ENDED)
    if plan.form == START:
        return Stop(JOINED)
    if plan.form == ROUTE:
        return _route_step(state, seat, plan)
    if plan.form == CITY:
        target = state.board.city_point(plan.city)
        return _toward(state, seat, [target])
    return _toward(state, seat, _missing(state, seat))


def route_end(state: GameState, plan: Plan, seat: int | None = None) -> int:
    """The point a route leads to: the end of its last line away from the line before it
    (for a one-line route, the end away from ``seat``'s network, else its second end)."""
    lines = state.board.lines
    a, b, _cost = lines[plan.route[-1]]
    if len(plan.route) > 1:
        before = lines[plan.route[-2]]
        return a if b in before[:2] else b
    if seat is not None and b in network(state, seat) and a not in network(state, seat):
        return a
    return b


def remaining_cost(state: GameState, plan: Plan) -> int:
    """What the route's unbuilt lines cost to build."""
    lines = state.board.lines
    return sum(lines[line][2] for line in plan.route if line not in state.built)


def route_slack(state: GameState, seat: int, route: tuple[int, ...]) -> int | None:
    """How much more the unbuilt lines of ``route`` cost than the cheapest way from the
    seat's network to its end, now (None before the seat's start marker is placed)."""
    own = network(state, seat)
    if not own:
        return None
    return _gap(state, seat, tuple(route), own)


def _gap(state: GameState, seat: int, route: tuple[int, ...], own: set[int]) -> int:
    probe = Plan(ROUTE, state.round, route=route)
    end = route_end(state, probe, seat)
    cheapest = distances(cost_graph(state.board, state.built, seat), own)[end]
    return remaining_cost(state, probe) - min(cheapest, remaining_cost(state, probe))


def _route_step(state: GameState, seat: int, plan: Plan) -> Move | Stop:
    board = state.board
    for line in plan.route:
        track = state.built.get(line)
        if track is not None and track.seat != seat:
            return Stop(LINE_TAKEN, line=line)
    left = [line for line in plan.route if line not in state.built]
    if not left:
        return Stop(JOINED)
    own = network(state, seat)
    end = route_end(state, plan, seat)
    if end in own:
        return Stop(JOINED)
    # Only others' track widens the gap: the seat's own building lowers both sides alike.
    if plan.slack is not None and _gap(state, seat, plan.route, own) > plan.slack:
        return Stop(CHEAPER_WAY)
    first = left[0]
    lines = [first]
    if board.lines[first][2] == 1 and len(left) > 1 and board.lines[left[1]][2] == 1:
        lines.append(left[1])
    # As much of the route as the turn allows: two lines, else the first alone.
    problem = None
    for count in (len(lines), 1) if len(lines) == 2 else (1,):
        chosen = lines[:count]
        move = Build(
            tuple(board.line_points(line) for line in chosen),
            frozenset(i for i, line in enumerate(chosen) if line in plan.coloured),
        )
        try:
            play(state, seat, move)
        except IllegalMove as exc:
            problem = problem or exc
            continue
        return move
    return Stop(BLOCKED, line=first, rule=problem.rule if problem else None)


def _missing(state: GameState, seat: int) -> list[int]:
    """The seat's terminals not joined to its network yet."""
    own = network(state, seat)
    return sorted(set(state.terminals(seat)) - own)


def _toward(state: GameState, seat: int, targets: list[int]) -> Move | Stop:
    """The cheapest build toward the cheapest of ``targets``: the turn's lines that bring
    the network nearest to it (the whole allowance when an equally cheap path allows),
    ties broken by line ids."""
    board = state.board
    own = network(state, seat)
    targets = [t for t in targets if t not in own]
    if not targets:
        return Stop(JOINED)
    graph = cost_graph(board, state.built, seat)
    from_network = distances(graph, own)
    reachable = [t for t in targets if from_network[t] < INFINITY]
    if not reachable:
        return Stop(UNREACHABLE)
    target = min(reachable, key=lambda t: (from_network[t], t))
    to_target = distances(graph, [target])
    now = from_network[target]

    def after(built_lines: tuple[int, ...], points: set[int]) -> tuple[int, set[int]]:
        """The distance left, and the network, once ``built_lines`` join ``points``."""
        grown = dict(state.built)
        for line in built_lines:
            grown[line] = Track(seat, False)
        joined = reach(board, grown, seat, points)
        return min(to_target[p] for p in joined), joined

    best: tuple[int, tuple[int, ...]] | None = None
    for first in legal_line_ids(state, seat):
        a, b, cost = board.lines[first]
        left1, grown = after((first,), own | {a, b})
        if left1 + cost > now:
            continue  # not on a cheapest way
        options = [((first,), now - left1)]
        if cost == 1 and left1 > 0:
            for second in _free_lines_at(state, grown, first):
                c, d, cost2 = board.lines[second]
                if cost2 != 1:
                    continue
                left2, _ = after((first, second), grown | {c, d})
                if left2 + 1 == left1:
                    options.append(((first, second), now - left2))
        for lines, gain in options:
            key = (-gain, tuple(sorted(lines)))
            better = best is None or key < (-best[0], tuple(sorted(best[1])))
            if better and _legal(state, seat, lines):
                best = (gain, lines)
    if best is None:
        return Stop(UNREACHABLE)
    return Build(tuple(board.line_points(line) for line in best[1]))


def _legal(state: GameState, seat: int, lines: tuple[int, ...]) -> bool:
    try:
        play(state, seat, Build(tuple(state.board.line_points(line) for line in lines)))
    except IllegalMove:
        return False
    return True


def _free_lines_at(state: GameState, points: set[int], skip: int) -> list[int]:
    built = state.built
    point_lines = state.board.point_lines
    return sorted(
        {line for p in points for line in point_lines[p] if line not in built and line != skip}
    )
