"""The build-plan panel of a seat's board page: its own plan only (the form, the target,
the next turn in words, or why it stopped), and the plans it may set, each with what it
costs. Nothing here is shown to any other seat."""

from __future__ import annotations

from games import rules
from games.derived.projection import sleep_of
from games.models import Plan, Seat
from games.words import places
from games.words import plans as plan_words
from games.words.city_names import city_name


def key(seat: Seat) -> tuple | None:
    """What the panel shows of the seat's plan, for the page cache's key (the page is
    cached per owner's plan, never shared across plans)."""
    if not seat.has_plan:
        return None
    plan = Plan.objects.filter(seat=seat).first()
    if plan is None:
        return None
    return (plan.pk, plan.form, plan.city, tuple(plan.route), plan.version, plan.stopped)


def facts(seat: Seat, state: rules.GameState) -> dict | None:
    """What the panel shows ``seat`` at ``state``; None outside a round."""
    if state.phase not in (rules.PLACING, rules.BUILDING) or seat.is_bot or seat.autopilot:
        return None
    position = seat.position
    plan = Plan.objects.filter(seat=seat).first() if seat.has_plan else None
    shown = {
        "holding": False,
        "stopped": "",
        "words": "",
        "next": "",
        "path": [],
        "offers": [],
        "starts": [],
    }
    if plan is not None and plan.stopped:
        shown["stopped"] = plan_words.why_stopped(plan.stopped)
    elif plan is not None:
        shown["holding"] = True
        shown["words"] = plan_words.describe(plan.form, city_name(plan.city) if plan.city else "")
        shown["next"] = next_turn(state, position, plan.engine_plan())
        shown["path"] = [
            places.line_name(state.board, line) for line in path(state, position, plan)
        ]
    if state.phase == rules.PLACING and state.start_point(position) is None:
        taken = set(state.starts)
        shown["starts"] = [
            {"point": point, "name": city_name(name)}
            for name in state.hands[position]
            if (point := state.board.city_point(name)) not in taken
        ]
    own = rules.network(state, position)
    if own:
        dist = rules.distances(rules.cost_graph(state.board, state.built, position), own)
        for name in state.hands[position]:
            cost = dist[state.board.city_point(name)]
            if 0 < cost < rules.INFINITY:
                shown["offers"].append(
                    {"city": name, "name": city_name(name), "cost": cost, "turns": -(-cost // 2)}
                )
    rest = sleep_of(seat.game, position, upto=seat.game.version)
    shown["quiet"] = {
        "start": rest.quiet[0].strftime("%H:%M") if rest.quiet else "",
        "end": rest.quiet[1].strftime("%H:%M") if rest.quiet else "",
        "zone": seat.browser_time_zone or rest.zone,
    }
    return shown


def next_turn(state: rules.GameState, position: int, plan: rules.Plan) -> str:
    """The plan's next turn in words, as it would play from this position."""
    if state.phase != rules.BUILDING:
        return ""
    ahead = state.copy()
    ahead.turn += (position - state.seat_to_move) % state.seat_count
    found = rules.plan_step(ahead, position, plan)
    if isinstance(found, rules.Stop):
        return plan_words.why_stopped(found.reason)
    if isinstance(found, rules.Build):
        board = state.board
        names = [places.line_name(board, board.line_id(line)) for line in found.lines]
        return plan_words.next_build(names)
    return ""


def path(state: rules.GameState, position: int, plan: Plan) -> list[int]:
    """The lines the plan still means to build (its owner's eyes only): a route's unbuilt
    lines; else a cheapest way from the network to its target (the nearest missing city
    for all my cities)."""
    if plan.form == rules.plans.ROUTE:
        return [line for line in plan.route if line not in state.built]
    own = rules.network(state, position)
    if not own or state.phase != rules.BUILDING:
        return []
    board = state.board
    if plan.form == rules.plans.CITY:
        targets = [board.city_point(plan.city)]
    else:
        targets = [p for p in state.terminals(position) if p not in own]
    targets = [t for t in targets if t not in own]
    if not targets:
        return []
    dist, via = rules.cheapest_paths(board, state.built, position, own, targets)
    reached = [t for t in targets if dist[t] < rules.INFINITY]
    if not reached:
        return []
    point = min(reached, key=lambda t: (dist[t], t))
    lines = []
    while point not in own and via[point] >= 0:
        line = via[point]
        if line not in state.built:
            lines.append(line)
        a, b, _cost = board.lines[line]
        point = a if b == point else b
    return lines[::-1]
