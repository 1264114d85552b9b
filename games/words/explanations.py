"""Why a move is refused, in the player's words and language.

Codes that only an imported record can raise keep the engine's English: only an
operator reads them.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from games import rules
from games.words import places

EXPLANATIONS = {
    "no_such_seat": _("There is no such seat in this game."),
    "game_over": _("The game is over."),
    "round_over": _("The round is over and the next one is not dealt yet."),
    "not_your_turn": _("It is not your turn: %(seat)s moves now."),
    "start_already_placed": _("Your start marker is already on the board."),
    "not_a_point": _("That is not a crossing point on this board."),
    "point_taken": _("%(point)s already holds a start marker."),
    "start_marker_first": _("Place your start marker before you build track."),
    "no_line": _("Build at least one line on your turn."),
    "too_many_lines": _("A turn builds one or two lines, not more."),
    "not_a_line": _("That is not a line: a line joins two neighbouring crossing points."),
    "same_line_twice": _("The line %(line)s is given twice."),
    "double_line_alone": _(
        "%(line)s is a double line (river, mountains or sea): it is the only line of its turn."
    ),
    "no_coloured_track": _("This game is played without coloured track."),
    "bad_coloured_index": _("The coloured track names a line that is not built."),
    "coloured_track_used_up": _(
        "You have %(left)s of your %(allowed)s coloured tracks left this round."
    ),
    "round_ended": _(
        "Your first line %(line)s joined all your cities and ended the round: it is the "
        "only line of your turn."
    ),
    "supply_used_up": _(
        "Your first line %(line)s used the last track of the supply, which ends the round."
    ),
    "line_taken": _("The line %(line)s is already built."),
    "not_touching_network": _("The line %(line)s does not touch your network."),
    "coloured_crowded": _("Two coloured tracks already touch %(point)s."),
    "must_build": _("You must build at least one line on your turn."),
}


def explain(board: rules.Board, illegal: rules.IllegalMove, seat_names: list[str] = ()) -> str:
    """Why ``illegal`` was refused, in the active language; ``seat_names`` name seats."""
    wording = EXPLANATIONS.get(illegal.rule)
    if wording is None:
        return illegal.message
    facts = dict(illegal.facts)
    if "line" in facts:
        line_id = board.line_id(facts["line"])
        if line_id is not None:
            facts["line"] = places.line_name(board, line_id)
    if "point" in facts:
        index = board.point_index.get(facts["point"])
        if index is not None:
            facts["point"] = places.point_name(board, index)
    if "seat" in facts and facts["seat"] < len(seat_names):
        facts["seat"] = seat_names[facts["seat"]]
    return str(wording) % facts
