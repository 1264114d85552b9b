"""The consent panel of a seat's board page: take back, more time, end by agreement, nudge.

It shows only the buttons that may work now, from the game's log (so it is cached with the
page, per version); the service answers a press that is no longer allowed with why.
"""

from __future__ import annotations

from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from games.derived import snapshots
from games.models import Game, Seat
from games.services import consent


def panel(seat: Seat, token: str, csrf_token: str | None = None) -> SafeString:
    """``seat``'s consent panel (games/_consent.html); empty for a bot or a game not on."""
    game = seat.game
    if game.status != Game.Status.ACTIVE or seat.is_bot or seat.autopilot:
        return SafeString("")
    state = snapshots.current(game).state
    last = state.last_move
    to_move = state.seat_to_move
    agreed = consent.agreements(game)
    people = consent.people(game)
    context = {
        "token": token,
        "may_take_back": bool(
            state.options.take_backs and last is not None and last["seat"] == seat.position
        ),
        "others_turn": to_move is not None and to_move != seat.position,
        "timed": game.time_per_move is not None,
        "agreed": seat.position in agreed,
        "agreed_count": len(agreed & set(people)),
        "people_count": len(people),
    }
    if csrf_token is not None:
        context["csrf_token"] = csrf_token
    return render_to_string("games/_consent.html", context)
