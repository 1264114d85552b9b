"""Events in words: one sentence per event, the same on the replay page and in every email."""

from __future__ import annotations

from collections.abc import Callable

from django.utils.translation import gettext, gettext_lazy, ngettext, pgettext

from games import rules
from games.words import places
from helpers.text import and_list

Names = list[str]


def _name(names: Names, seat) -> str:
    if isinstance(seat, int) and 0 <= seat < len(names):
        return names[seat]
    return gettext("A player")


def coloured(words: str) -> str:
    """A line's name marked as built with coloured track."""
    return pgettext("line", "%(line)s (coloured)") % {"line": words}


def _created(event: dict, state: rules.GameState, names: Names) -> str:
    return gettext("The game is set up on the %(board)s board for %(count)s players.") % {
        "board": state.board.title,
        "count": state.seat_count,
    }


def _round_started(event: dict, state: rules.GameState, names: Names) -> str:
    return gettext(
        "Round %(round)s begins: each player is dealt five cities, and %(first)s plays first."
    ) % {"round": event["round"], "first": _name(names, event["first_seat"])}


def _start_placed(event: dict, state: rules.GameState, names: Names) -> str:
    board = state.board
    index = board.point_index.get(tuple(event["point"]))
    who = _name(names, event["seat"])
    if index is None:
        return gettext("%(player)s places their start marker off the board.") % {"player": who}
    where = places.point_name(board, index)
    if index in board.city_at:
        return gettext("%(player)s places their start marker in %(city)s.") % {
            "player": who,
            "city": where,
        }
    return gettext("%(player)s places their start marker at %(point)s.") % {
        "player": who,
        "point": where,
    }


def _track_built(event: dict, state: rules.GameState, names: Names) -> str:
    board = state.board
    exclusive = set(event.get("exclusive") or ())
    lines = []
    for n, line in enumerate(event["lines"]):
        line_id = board.line_id(rules.as_line(line))
        words = places.line_name(board, line_id) if line_id is not None else str(line)
        lines.append(coloured(words) if n in exclusive else words)
    return ngettext(
        "%(player)s builds one track: %(lines)s.",
        "%(player)s builds %(count)s tracks: %(lines)s.",
        len(lines),
    ) % {"player": _name(names, event["seat"]), "count": len(lines), "lines": and_list(lines)}


def _turn_passed(event: dict, state: rules.GameState, names: Names) -> str:
    return gettext("%(player)s cannot build and passes.") % {"player": _name(names, event["seat"])}


def _round_scored(event: dict, state: rules.GameState, names: Names) -> str:
    joined = [_name(names, seat) for seat in event["connected"]]
    scores = ", ".join(f"{_name(names, s)} {score}" for s, score in enumerate(event["scores"]))
    facts = {"round": event["round"], "players": and_list(joined), "scores": scores}
    if joined:
        return (
            gettext(
                "Round %(round)s is over: %(players)s joined all their cities. Scores: %(scores)s."
            )
            % facts
        )
    return gettext("Round %(round)s is over: the track ran out. Scores: %(scores)s.") % facts


def _game_ended(event: dict, state: rules.GameState, names: Names) -> str:
    winners = event.get("winners", state.winners)
    won = and_list([_name(names, seat) for seat in winners])
    if event.get("reason") == rules.ENDED_BY_AGREEMENT:
        return ngettext(
            "The players agreed to end the game: %(winners)s wins.",
            "The players agreed to end the game: %(winners)s share the win.",
            len(winners),
        ) % {"winners": won}
    return ngettext(
        "The game is over: %(winners)s wins.",
        "The game is over: %(winners)s share the win.",
        len(winners),
    ) % {"winners": won}


# Events the engine passes over, and what the move log says of them.
AROUND_PLAY = {
    rules.TURN_TIMED_OUT: gettext_lazy("%(player)s ran out of time."),
    rules.SEAT_TAKEN_BY_BOT: gettext_lazy("A bot now plays for %(player)s."),
    rules.SEAT_TAKEN_BACK: gettext_lazy("%(player)s plays again."),
    rules.CLOCK_PAUSED: gettext_lazy("%(player)s is away: their clock is paused."),
    rules.CLOCK_RESUMED: gettext_lazy("%(player)s is back: their clock runs again."),
    rules.TURN_TAKEN_BACK: gettext_lazy("%(player)s took back their last turn."),
    rules.TIME_GIVEN: gettext_lazy("%(player)s gave the player to move 24 more hours."),
    rules.END_AGREED: gettext_lazy("%(player)s agreed to end the game now."),
    rules.NUDGED: gettext_lazy("%(player)s nudged the player to move."),
    rules.SEAT_LEFT: gettext_lazy("%(player)s left the game: a bot plays the seat."),
    rules.SUBSTITUTE_BACKED: gettext_lazy("%(player)s backed inviting a substitute."),
    rules.SEAT_HANDED_OVER: gettext_lazy("%(player)s takes over the seat as a substitute."),
}


def _around_play(event: dict, state: rules.GameState, names: Names) -> str:
    wording = AROUND_PLAY.get(event["type"])
    if wording is not None:
        return str(wording) % {"player": _name(names, event.get("seat"))}
    return gettext("Something happened at the table (%(what)s).") % {"what": event["type"]}


PHRASES: dict[str, Callable[[dict, rules.GameState, Names], str]] = {
    rules.GAME_CREATED: _created,
    rules.ROUND_STARTED: _round_started,
    rules.START_PLACED: _start_placed,
    rules.TRACK_BUILT: _track_built,
    rules.TURN_PASSED: _turn_passed,
    rules.ROUND_SCORED: _round_scored,
    rules.GAME_ENDED: _game_ended,
}


def describe(event: dict, state: rules.GameState, names: Names) -> str:
    """One sentence saying what ``event`` did; ``state`` is from the same round or later."""
    return PHRASES.get(event["type"], _around_play)(event, state, names)


def since_last_turn(state: rules.GameState, position: int, log: list[dict], names: Names) -> list:
    """What the other seats did since ``position`` last moved, in this round, in order."""
    return [describe(event, state, names) for event in rules.moves_since_last_turn(log, position)]
