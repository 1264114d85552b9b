"""Events in words: one sentence per event, for the replay page and every email.

The one place where Railmail words what happened. The replay page describes each event;
the your-turn email lists what the others did since the player's last turn, in the same
sentences. Coloured track (the variant's lines only their builder may use) is called
"coloured" everywhere.
"""

from __future__ import annotations

from collections.abc import Callable

from games import places, rules

Names = list[str]


def _name(names: Names, seat) -> str:
    if isinstance(seat, int) and 0 <= seat < len(names):
        return names[seat]
    return "A player"


def _and(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def _created(event: dict, state: rules.GameState, names: Names) -> str:
    return f"The game is set up on the {state.board.title} board for {state.seat_count} players."


def _round_started(event: dict, state: rules.GameState, names: Names) -> str:
    return (
        f"Round {event['round']} begins: each player is dealt five cities, "
        f"and {_name(names, event['first_seat'])} plays first."
    )


def _start_placed(event: dict, state: rules.GameState, names: Names) -> str:
    board = state.board
    index = board.point_index.get(tuple(event["point"]))
    where = "somewhere off the board" if index is None else places.point_name(board, index)
    at = "in" if index in board.city_at else "at"
    return f"{_name(names, event['seat'])} places their start marker {at} {where}."


def _track_built(event: dict, state: rules.GameState, names: Names) -> str:
    board = state.board
    # "exclusive": the indexes, in "lines", of the lines built as coloured track.
    coloured = set(event.get("exclusive") or ())
    lines = []
    for n, line in enumerate(event["lines"]):
        line_id = board.line_id(rules.as_line(line))
        words = places.line_name(board, line_id) if line_id is not None else str(line)
        lines.append(f"{words} (coloured)" if n in coloured else words)
    what = "one track" if len(lines) == 1 else f"{len(lines)} tracks"
    return f"{_name(names, event['seat'])} builds {what}: {_and(lines)}."


def _turn_passed(event: dict, state: rules.GameState, names: Names) -> str:
    return f"{_name(names, event['seat'])} cannot build and passes."


def _round_scored(event: dict, state: rules.GameState, names: Names) -> str:
    joined = [_name(names, seat) for seat in event["connected"]]
    who = f"{_and(joined)} joined all their cities" if joined else "the track ran out"
    scores = ", ".join(f"{_name(names, s)} {score}" for s, score in enumerate(event["scores"]))
    return f"Round {event['round']} is over: {who}. Scores: {scores}."


def _game_ended(event: dict, state: rules.GameState, names: Names) -> str:
    winners = event.get("winners", state.winners)
    won = _and([_name(names, seat) for seat in winners])
    verb = "wins" if len(winners) == 1 else "share the win"
    return f"The game is over: {won} {verb}."


def _around_play(event: dict, state: rules.GameState, names: Names) -> str:
    # Events the engine passes over (a timed-out turn, a bot taking a seat, ...).
    subject = f"{_name(names, event['seat'])}: " if "seat" in event else ""
    return subject + event["type"].replace("_", " ").capitalize() + "."


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
    """One sentence saying what ``event`` did; ``state`` is the game's state after it (or
    later in the same round: only the board is read from it)."""
    return PHRASES.get(event["type"], _around_play)(event, state, names)


def since_last_turn(state: rules.GameState, position: int, log: list[dict], names: Names) -> list:
    """What the other seats did since ``position`` last moved, in this round, in order."""
    return [describe(event, state, names) for event in rules.moves_since_last_turn(log, position)]
