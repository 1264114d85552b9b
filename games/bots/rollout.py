"""Playing the round out: what a turn is worth when the round ends.

A round is scored when the first player joins their cities, so a turn is judged by the
end of the round: for a guess at every seat's cities, everybody plays on, each heading
for their nearest city not yet joined, as most players do. The worth is the seat's loss
then, less a share of the others' (the game is won on the difference). Every guess is
drawn from public facts; nothing here looks at a hidden hand.
"""

from __future__ import annotations

from collections.abc import Sequence

from games import rules

from .greedy import choose_start as usual_start
from .lookahead import Components, joins_some_seat

# How much a point the others lose counts against one the seat loses (their mean loss).
OTHERS_WEIGHT = 0.5
# A safety stop: turns per seat played out (a round never lasts this long).
MAX_TURNS = 40


def worth(
    state: rules.GameState,
    seat: int,
    lines: Sequence[int],
    tables: Sequence[list],
    known: dict | None = None,
    weight: float = OTHERS_WEIGHT,
) -> float:
    """The mean worth (lower is better) of building ``lines`` over ``tables``."""
    if known is None:
        known = {}
    total = 0.0
    for table in tables:
        key = (frozenset(lines), tuple(map(tuple, table)))
        if key not in known:
            known[key] = judged(round_losses(state, seat, lines, table), seat, weight)
        total += known[key]
    return total / len(tables)


def start_worth(state: rules.GameState, seat: int, point: int, tables: Sequence[list]) -> float:
    """The mean worth (lower is better) of a start marker on ``point``, over ``tables``."""
    return sum(judged(start_losses(state, seat, point, table), seat) for table in tables) / len(
        tables
    )


def round_losses(state: rules.GameState, seat: int, lines: Sequence[int], table: list) -> list[int]:
    """Each seat's missing cost when the round ends, once ``seat`` has built ``lines``."""
    built = dict(state.built)
    for line in lines:
        built[line] = rules.Track(seat, False)
    supply = state.supply_left - len(lines)
    return play_round(state, built, supply, (seat + 1) % state.seat_count, table, lines)


def start_losses(state: rules.GameState, seat: int, point: int, table: list) -> list[int]:
    """Each seat's missing cost when the round ends, once ``seat`` starts on ``point``
    and the others still to place start where players usually do."""
    board = state.board
    n = state.seat_count
    scratch = state.copy()
    scratch.hands = [tuple(board.city_at[p].name for p in table[s]) for s in range(n)]
    scratch.starts = list(state.starts)
    scratch.starts[seat] = point
    placed = state.turn + 1  # seats placed once ``seat`` has
    for k in range(placed, n):
        other = (state.first_seat + k) % n
        scratch.starts[other] = usual_start(scratch, other)
    return play_round(scratch, dict(state.built), state.supply_left, state.first_seat, table, ())


def play_round(
    state: rules.GameState,
    built: dict,
    supply: int,
    first: int,
    table: list,
    lines: Sequence[int],
    log: list | None = None,
) -> list[int]:
    """Play the round on from ``built``; each seat's missing cost when it ends (``log``
    gets each line built, as (line, builder))."""
    board = state.board
    n = state.seat_count
    needs = [set(table[s]) for s in range(n)]
    if state.options.cities_must_join_start:
        for s, need in enumerate(needs):
            start = state.start_point(s)
            if start is not None:
                need.add(start)
    joined = Components(board, built, None)
    # What each line costs each seat, kept up to date as lines are built (a search a turn
    # would otherwise work it out again from the whole track).
    # The playout builds no coloured track: the seats without any of their own may use
    # the same track (all of it, when none is coloured), so one set of components and one
    # list of costs serve them all.
    owners = {track.seat for track in built.values() if track.exclusive}
    others = [s for s in range(n) if s not in owners]
    usable = {s: Components(board, built, s) for s in owners}
    costs = {s: rules.line_costs(board, built, s) for s in owners}
    if others:
        shared = Components(board, built, others[0]) if owners else joined
        usable.update(dict.fromkeys(others, shared))
        costs.update(dict.fromkeys(others, rules.line_costs(board, built, others[0])))
    kept_up = list({id(kept): kept for kept in [*usable.values(), joined]}.values())
    cost_lists = list({id(kept): kept for kept in costs.values()}.values())
    ended = supply <= 0 or any(joins_some_seat(board, built, line, needs, joined) for line in lines)
    order = [(first + k) % n for k in range(n)]
    turns = 0
    while not ended and turns < MAX_TURNS:
        turns += 1
        moved = False
        for other in order:
            start = state.start_point(other)
            if start is None:
                continue
            spent = 0
            way: list[int] = []
            while spent < 2 and supply > 0:
                if not way:
                    network = usable[other].of(start)
                    way = turn_lines(board, built, network, needs[other], costs[other])
                    if not way:
                        break
                line = way.pop(0)
                cost = board.lines[line][2]
                if spent + cost > 2:
                    break  # a double line goes alone
                built[line] = rules.Track(other, False)
                if log is not None:
                    log.append((line, other))
                for components in kept_up:
                    components.join(line)
                for seat_costs in cost_lists:
                    seat_costs[line] = 0
                supply -= 1
                spent += cost
                moved = True
                if supply == 0 or joins_some_seat(board, built, line, needs, joined):
                    ended = True
                    break
            if ended:
                break
        if not moved:
            break
    scratch = state.copy()
    scratch.built = built
    scratch.hands = [tuple(board.city_at[p].name for p in table[s]) for s in range(n)]
    return rules.missing_costs(scratch)


def judged(losses: list[int], seat: int, weight: float = OTHERS_WEIGHT) -> float:
    """A round's losses as one figure for ``seat`` (lower is better)."""
    others = [loss for s, loss in enumerate(losses) if s != seat]
    mean = sum(others) / len(others) if others else 0.0
    return losses[seat] - weight * mean


def turn_lines(
    board: rules.Board, built: rules.Built, network: set[int], targets: set[int], costs: list[int]
) -> list[int]:
    """The free lines of a cheapest way from ``network`` to the nearest of ``targets``,
    searched once a turn (the way on is mostly the same). ``costs``: the mover's
    ``rules.line_costs`` of ``built``, kept up to date by the playout."""

    targets = targets - network
    if not targets:
        return []
    # The way to the nearest target is known before its bucket is searched through.
    dist, via = rules.cheapest_paths_by_cost(board, costs, network, targets, nearest_only=True)
    found = [(dist[t], t) for t in targets if dist[t] < rules.INFINITY]
    if not found:
        return []
    point = min(found)[1]
    lines = []
    while point not in network:
        line = via[point]
        if line not in built:
            lines.append(line)
        a, b, _cost = board.lines[line]
        point = a if b == point else b
    lines.reverse()
    return lines[:2]
