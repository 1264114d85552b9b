"""The consent panel of a seat's board page: take back, more time, end by agreement, nudge.

It shows only the buttons that may work now, from the game's log (so it is cached with the
page, per version); the service answers a press that is no longer allowed with why.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from games.derived import snapshots
from games.forms import ReplacePlayerForm
from games.models import Game, Seat
from games.pages.table_read import SeatRow
from games.services import consent, substitutes


def panel(
    seat: Seat,
    token: str,
    snapshot: snapshots.Snapshot,
    rows: Sequence[SeatRow],
    csrf_token: str | None = None,
) -> SafeString:
    """``seat``'s consent panel (games/_consent.html) at ``snapshot``, its table's ``rows``
    as the page read them; empty for a bot or a game not on."""
    game = seat.game
    if game.status != Game.Status.ACTIVE or seat.is_bot or seat.autopilot:
        return SafeString("")
    state = snapshot.state
    last = state.last_move
    to_move = state.seat_to_move
    agreed = consent.agreements(snapshot)
    people = consent.people(rows)
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
        # A form for each seat, with ids of its own (ids are unique on a page).
        "substitutable": [
            (other, ReplacePlayerForm(auto_id=f"id_substitute_{other.position}_%s"))
            for other in _substitutable(game, seat, rows)
        ],
        "muted": seat.notices_muted,
    }
    if csrf_token is not None:
        context["csrf_token"] = csrf_token
    return render_to_string("games/_consent.html", context)


def _substitutable(game: Game, seat: Seat, rows: Sequence[SeatRow]) -> list[Seat]:
    """The other seats ``seat``'s player may invite a substitute for: those that timed out
    or whose player left, when the viewer is the creator (or the creator has left)."""
    wanted = [
        row.position
        for row in rows
        if not row.is_bot
        and row.position != seat.position
        and (row.autopilot or row.timeouts_in_a_row)
    ]
    if not wanted:
        return []  # the usual table: nothing to ask the database
    creator = substitutes.creator_seat(game)
    if creator is not None and creator.pk != seat.pk:
        return []
    return list(game.seats.filter(position__in=wanted).order_by("position"))
