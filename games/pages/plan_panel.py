"""The build-plan panel of a seat's board page: its plan, the plans it may set, and a
route to pick. Nothing here is shown to any other seat."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext, pgettext

from games import rules
from games.derived.projection import sleep_from
from games.derived.snapshots import Snapshot
from games.models import Plan, Seat
from games.pages.drawing import layout
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


def facts(seat: Seat, snapshot: Snapshot, token: str = "") -> dict | None:
    """What the panel shows ``seat`` at ``snapshot``; None outside a round. ``token``: the
    seat link's, for the panel's links."""
    state = snapshot.state
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
        "path_ids": [],
        "offers": [],
        "starts": [],
        "route": None,
    }
    if plan is not None and plan.stopped:
        shown["stopped"] = plan_words.why_stopped(plan.stopped)
    elif plan is not None:
        shown["holding"] = True
        shown["words"] = plan_words.describe(plan.form, city_name(plan.city) if plan.city else "")
        shown["next"] = next_turn(state, position, plan.engine_plan())
        shown["path_ids"] = path(state, position, plan)
        marked = set(plan.coloured)
        shown["path"] = [
            plan_words.line(places.line_name(state.board, line), line in marked)
            for line in shown["path_ids"]
        ]
    if state.phase == rules.PLACING and state.start_point(position) is None:
        taken = set(state.starts)
        shown["starts"] = [
            {"point": point, "name": city_name(name), "number": number}
            for number, name in enumerate(state.hands[position], 1)
            if (point := state.board.city_point(name)) not in taken
        ]
    own = rules.network(state, position)
    if own and state.phase == rules.BUILDING and token:
        shown["route"] = route_data(state, position, token)
    if own:
        dist = rules.distances(rules.cost_graph(state.board, state.built, position), own)
        for number, name in enumerate(state.hands[position], 1):
            cost = dist[state.board.city_point(name)]
            if 0 < cost < rules.INFINITY:
                # ``number``: the city's place in the hand, as the one-tap link names it.
                shown["offers"].append(
                    {
                        "city": name,
                        "name": city_name(name),
                        "number": number,
                        "cost": cost,
                        "turns": -(-cost // 2),
                    }
                )
    rest = sleep_from(seat.game, position, snapshot.clock)  # the snapshot's: no log read
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
        names = [
            plan_words.line(places.line_name(board, board.line_id(line)), n in found.exclusive)
            for n, line in enumerate(found.lines)
        ]
        return plan_words.next_build(names)
    return ""


def coloured_left(state: rules.GameState, position: int) -> int:
    """How many coloured tracks the seat may still mark on a route (0: none, or a game
    without them)."""
    if not state.options.exclusive_tracks or not state.exclusive_left:
        return 0
    return state.exclusive_left[position]


def path(state: rules.GameState, position: int, plan: Plan) -> list[int]:
    """The lines the plan still means to build (its owner's eyes only)."""
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


def route_tip(state: rules.GameState, position: int, route: list[int]) -> set[int]:
    """Where the next line of a route being picked may start: the network, then the far
    end of its last line (a route is built in order, as route_end reads it)."""
    own = set(rules.network(state, position))
    if not route:
        return own
    lines = state.board.lines
    a, b, _cost = lines[route[-1]]
    before = set(lines[route[-2]][:2]) if len(route) > 1 else own
    return {p for p in (a, b) if p not in before} or {a, b}


def route_next(state: rules.GameState, position: int, route: list[int]) -> list[int]:
    """The lines that may come next in a route being picked: free lines from its tip."""
    tip = route_tip(state, position, route)
    taken = set(route)
    point_lines = state.board.point_lines
    return sorted(
        {
            line
            for p in tip
            for line in point_lines[p]
            if line not in state.built and line not in taken
        }
    )


def route_data(state: rules.GameState, position: int, token: str) -> dict:
    """What the plan's script needs to let the owner pick a route on the board (public
    facts and the owner's own only)."""
    board = state.board
    positions, _width, _height = layout(board)
    return {
        "url": reverse("games:plan_route", args=[token]),
        "lines": [list(line) for line in board.lines],
        "built": sorted(state.built),
        "network": sorted(rules.network(state, position)),
        "positions": positions,
        "names": list(places.point_names(board)),
        # Lines of the route the player may mark as coloured track (0: none to mark).
        "coloured_left": coloured_left(state, position),
        "words": {
            "coloured": pgettext("one line of a route", "Coloured track"),
            "coloured_left": gettext(
                "Mark the lines your plan builds with your coloured track "
                "(%(left)s left this round)."
            ),
            "coloured_used_up": gettext("You have no more coloured tracks to mark."),
            "start": gettext(
                "Pick your route on the board, line by line from your network: "
                "tap near the line that comes next."
            ),
            "picked": gettext("Your route: %(lines)s (%(cost)s tracks)."),
            "picked_listed": gettext("Your route (%(cost)s tracks):"),
            "line": pgettext("line", "%(one)s to %(other)s"),
            "not_next": gettext("That line does not continue your route: pick one from its end."),
            "empty": gettext("Pick at least one line."),
            "review": gettext("Review and follow this route"),
            "undo": gettext("Take back the last line"),
            "cancel": gettext("Stop picking"),
        },
    }
