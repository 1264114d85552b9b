"""The public game record (``pbem-game-record/1``): a whole game's history as JSON."""

from __future__ import annotations

from collections.abc import Sequence

from .errors import InvalidEvent
from .events import GAME_CREATED, MOVE_EVENTS, ROUND_STARTED, TURN_TAKEN_BACK
from .options import Options
from .replay import game_created, replay
from .state import AWAITING_DEAL, OVER, GameState

FORMAT = "pbem-game-record/1"


class InvalidRecord(ValueError):
    """A document that is not a readable game record."""


def make_record(
    events: Sequence[dict], seat_names: Sequence[str], viewer: int | None = None
) -> dict:
    """The record of a game from its log (events carry ``seq``).

    While a round runs its hands are secret: every hand but ``viewer``'s is ``null``.
    Turns taken back are left out with their take-backs (``kept_events``).
    """
    state = replay(events)
    created = events[0]
    hidden_round = None if state.phase in (AWAITING_DEAL, OVER) else state.round
    out = []
    for event in kept_events(events):
        event = dict(event)
        if event["type"] == ROUND_STARTED and event["round"] == hidden_round:
            event["hands"] = [
                hand if seat == viewer else None for seat, hand in enumerate(event["hands"])
            ]
        out.append(event)
    record = {
        "format": FORMAT,
        "board": created["board"],
        "options": Options.from_dict(created.get("options")).to_dict(),
        "seats": [{"seat": seat, "name": name} for seat, name in enumerate(seat_names)],
        "events": out,
    }
    if state.is_over:
        record["result"] = {"scores": list(state.scores), "winners": list(state.winners)}
    return record


def kept_events(events: Sequence[dict]) -> list[dict]:
    """The log without the turns taken back and their take-backs, renumbered."""
    dropped: set[int] = set()
    for index, event in enumerate(events):
        if event["type"] != TURN_TAKEN_BACK:
            continue
        dropped.add(index)
        taken = next(
            back
            for back in range(index - 1, -1, -1)
            if back not in dropped and events[back]["type"] in MOVE_EVENTS
        )
        dropped.add(taken)
    if not dropped:
        return list(events)
    first = events[0].get("seq", 1)
    kept = [event for index, event in enumerate(events) if index not in dropped]
    return [
        {**event, "seq": first + n} if "seq" in event else event for n, event in enumerate(kept)
    ]


def read_record(record: dict) -> list[dict]:
    """The event log a record describes, ready for ``replay``."""
    if not isinstance(record, dict):
        raise InvalidRecord("a game record is a JSON object")
    if record.get("format") != FORMAT:
        raise InvalidRecord(f"unknown format {record.get('format')!r}: expected {FORMAT!r}")
    seats = record.get("seats")
    events = record.get("events")
    if not isinstance(seats, list) or not isinstance(events, list) or not events:
        raise InvalidRecord("a game record has a list of seats and a list of events")
    if not isinstance(record.get("options", {}), dict | None):
        raise InvalidRecord("a game record's options are an object")
    try:
        first = game_created(
            record.get("board"), len(seats), Options.from_dict(record.get("options"))
        )
    except ValueError as error:
        raise InvalidRecord(str(error)) from None
    for position, event in enumerate(events, start=1):
        if not isinstance(event, dict) or event.get("seq") != position:
            raise InvalidRecord(f"events are numbered from 1 without gaps: event {position} is not")
    if events[0].get("type") == GAME_CREATED:
        for key in ("board", "seats", "options"):
            if key == "options":
                same = Options.from_dict(events[0].get(key)) == Options.from_dict(first[key])
            else:
                same = events[0].get(key) == first[key]
            if not same:
                raise InvalidRecord(f"the game_created event's {key} differs from the record's")
        return list(events)
    return [{**first, "seq": 0}, *events]


def replay_record(record: dict) -> GameState:
    """Replay a record, checking every event and whatever result it states.

    Raises InvalidRecord for a malformed document and InvalidEvent for a wrong event.
    """
    state = replay(read_record(record))
    result = record.get("result")
    if result is not None:
        last = record["events"][-1]["seq"]
        if not isinstance(result, dict):
            raise InvalidRecord("a game record's result is an object")
        if not state.is_over:
            raise InvalidEvent(last, "the record states a result but the game is not over")
        expected = {"scores": state.scores, "winners": state.winners}
        for key, value in expected.items():
            if key in result and result[key] != value:
                raise InvalidEvent(last, f"the result's {key} should be {value}, not {result[key]}")
    return state


def seat_names(record: dict) -> list[str]:
    """The players' names in a record, in play order; raises InvalidRecord if out of order."""
    seats = record.get("seats") if isinstance(record, dict) else None
    if not isinstance(seats, list):
        raise InvalidRecord("a game record has a list of seats")
    names = []
    for position, seat in enumerate(seats):
        if not isinstance(seat, dict) or seat.get("seat", position) != position:
            raise InvalidRecord(f"seats are listed in play order from 0: seat {position} is not")
        name = seat.get("name")
        if name is not None and not isinstance(name, str):
            raise InvalidRecord(f"seat {position}'s name is not text")
        names.append(name or f"Seat {position}")
    return names
