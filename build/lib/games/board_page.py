"""What a seat's board page shows: the data behind games/board.html.

Everything here is computed for one viewing seat. Other seats' hands appear only once
they are public (the engine's ``hands_visible_to``, and the scored round's hands).
"""

from __future__ import annotations

import zoneinfo

from games import rules
from games.board import board_svg, last_turn, seat_colour
from games.forms import MoveForm
from games.models import Game, Seat


def viewer_timezone(seat: Seat) -> zoneinfo.ZoneInfo:
    """The seat's account time zone, or UTC for players without an account."""
    name = getattr(seat.user, "timezone", "") or "UTC"
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def seat_page(
    game: Game, seat: Seat, state: rules.GameState, events: list[dict], form: MoveForm | None
) -> dict:
    """The template context of ``seat``'s board page. ``form`` is the move form, or None
    when it is not the seat's turn."""
    seats = list(game.seats.all())
    names = [s.name for s in seats]
    viewer = seat.position
    my_turn = form is not None
    pickable_lines = set(form.first_line_ids) | set(form.second_line_ids) if my_turn else ()
    pickable_points = form.start_point_ids if my_turn else ()
    visible = rules.hands_visible_to(state, viewer) if state.hands else []
    players = [
        {
            "position": s.position,
            "name": s.name,
            "colour": seat_colour(s.position),
            "score": state.scores[s.position] if state.scores else None,
            "is_bot": s.is_bot or s.autopilot,
            "joined": s.joined_at is not None,
            "to_move": state.seat_to_move == s.position,
            "is_viewer": s.position == viewer,
            # Public only: after the game ended, every hand of the last round.
            "hand": visible[s.position] if visible and s.position != viewer else None,
        }
        for s in seats
    ]
    own_hand = []
    missing = None
    if state.hands and state.phase in (rules.PLACING, rules.BUILDING, rules.ROUND_OVER):
        board = state.board
        joined = set(rules.network(state, viewer))
        own_hand = [
            {
                "name": name,
                "colour": board.city_by_name[name].colour,
                "reached": board.city_point(name) in joined,
            }
            for name in state.hands[viewer]
        ]
        if state.starts[viewer] is not None:
            missing = rules.missing_cost(state, viewer)
    return {
        "game": game,
        "seat": seat,
        "state": state,
        "players": players,
        "own_hand": own_hand,
        "missing_cost": missing,
        "my_turn": my_turn,
        "form": form,
        "to_move": seats[state.seat_to_move] if state.seat_to_move is not None else None,
        "tz": viewer_timezone(seat),
        "last_scoring": _last_scoring(state, names),
        "winners": [names[w] for w in state.winners],
        "svg": board_svg(
            state,
            viewer,
            highlight=last_turn(state, events),
            seat_names=names,
            pickable_lines=pickable_lines,
            pickable_points=pickable_points,
        ),
        "pick_data": _pick_data(state, viewer, form) if my_turn else None,
    }


def _last_scoring(state: rules.GameState, names: list[str]) -> list[dict] | None:
    """The last scored round, hands included: public once the round is scored."""
    scoring = state.last_scoring
    if not scoring:
        return None
    return [
        {
            "name": name,
            "loss": scoring["losses"][n],
            "score": scoring["scores"][n],
            "hand": scoring["hands"][n] if "hands" in scoring else [],
            "connected": n in scoring["connected"],
        }
        for n, name in enumerate(names)
    ]


def _pick_data(state: rules.GameState, viewer: int, form: MoveForm) -> dict:
    """What the board's script needs to let the player click only legal picks.

    Public facts only: the board's lines, the viewer's own network and what may be built.
    """
    board = state.board
    lines = {
        str(i): [board.lines[i][0], board.lines[i][1], board.lines[i][2]]
        for i in sorted(set(form.first_line_ids) | set(form.second_line_ids))
    }
    return {
        "placing": form.placing,
        "network": sorted(rules.network(state, viewer)),
        "first": form.first_line_ids,
        "lines": lines,
        "may_colour": form.may_colour,
        "coloured_left": state.exclusive_left[viewer] if state.exclusive_left else 0,
    }
