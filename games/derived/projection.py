"""The Game row's projection columns, computed from the engine's state.

Used by the write path after every append and by ``manage.py rebuild_projections``,
so that the two can never disagree about what a game's columns should hold.
"""

import hashlib
import json
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Q

from games import rules
from games.models import Event, Game, Seat


def log_digest(events: Iterable[dict], previous: str = "") -> str:
    """The digest of a log: each event (engine form, with its seq) chained onto the digest
    of the log before it, ``previous`` ("" before the first event).

    Two logs share a digest only if they hold the same events in the same order, so a
    copy derived from the log and keyed by it can never be taken for another log's, not
    even after a database restored from an older backup reuses version numbers.
    """
    digest = previous
    for event in events:
        text = json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        digest = hashlib.sha256(f"{digest}\n{text}".encode()).hexdigest()
    return digest


def project(
    game: Game,
    state: Any,
    last_event: Event,
    seats: Sequence[Seat] | None = None,
    unwritten: Sequence[Event] = (),
) -> dict[str, Any]:
    """Return the projection columns for ``game`` once ``state`` is reached by ``last_event``.

    ``state`` is the rules engine's GameState after replaying the log up to and including
    ``last_event``. The deadline runs from the last event that is not a clock event: a
    player has ``time_per_move`` from the moment it became their turn, plus the time their
    clock was paused (vacation) since then. ``seats``: the game's seats in position order,
    when the caller has read them already (else the one needed is read). ``unwritten``:
    the last events of the log, ``last_event`` included, when they are not in the database
    yet (the write path projects the game before it writes them with its row).
    """
    if state.is_over:
        status = Game.Status.FINISHED
    elif state.round == 0:
        status = Game.Status.SETUP
    else:
        status = Game.Status.ACTIVE
    seat_to_move = state.seat_to_move
    deadline = None
    if seat_to_move is not None and _bot_plays(game, seat_to_move, seats):
        # A bot's turn is due at once, with or without a time per move: the bot task
        # queued after the commit normally plays it within a second, and the minute scan
        # plays it if that task was never queued (a broker that blinked), so no game
        # waits for a lost task.
        deadline = last_event.created_at
    elif seat_to_move is not None and game.time_per_move is not None:
        deadline = _deadline(game, seat_to_move, last_event, unwritten)
    return {
        "status": status.value,
        "round": state.round,
        "seat_to_move": seat_to_move,
        "deadline": deadline,
        "version": last_event.seq,
        "scores": list(state.scores),
        "finished_at": last_event.created_at if state.is_over else None,
    }


def _deadline(game: Game, seat_to_move: int, last_event: Event, unwritten: Sequence[Event]):
    """When the player to move must have moved, or None if their clock is stopped.

    - After a timeout in a game that waits, the clock stays stopped until they move.
    - While the player is on vacation (a clock_paused event of their seat with no
      clock_resumed after it), the clock is stopped; afterwards the deadline is later by
      the time it was paused during this turn.
    """
    turn_start = last_event
    if game.pk and last_event.type in rules.CLOCK_EVENTS:
        # Another seat's vacation, or this seat's, does not start a new turn.
        later = [
            e for e in unwritten if e.seq < last_event.seq and e.type not in rules.CLOCK_EVENTS
        ]
        turn_start = (
            max(later, key=lambda e: e.seq, default=None)
            or (
                game.events.filter(seq__lt=last_event.seq)
                .exclude(type__in=rules.CLOCK_EVENTS)
                .order_by("-seq")
                .first()
            )
            or last_event
        )
    if turn_start.type == rules.TURN_TIMED_OUT and game.on_timeout == Game.OnTimeout.WAIT:
        return None
    paused = timedelta(0)
    if game.pk:
        since, upto = turn_start.created_at, last_event.seq
        paused = paused_time(game, seat_to_move, since=since, upto=upto, unwritten=unwritten)
        if paused is None:
            return None
    return turn_start.created_at + game.time_per_move + paused


def _bot_plays(game: Game, position: int, seats: Sequence[Seat] | None) -> bool:
    """Whether a bot plays the seat: a bot's own seat, or one it keeps after timeouts."""
    if seats is not None:
        return seats[position].is_bot or seats[position].autopilot
    if not game.pk:
        return False
    return game.seats.filter(position=position).filter(Q(is_bot=True) | Q(autopilot=True)).exists()


def paused_time(
    game: Game, position: int, *, since: datetime, upto: int, unwritten: Sequence[Event] = ()
) -> timedelta | None:
    """How long the seat's clock was paused after ``since``; None if it is paused now.

    Reads the seat's clock events up to event ``upto`` (those of ``unwritten``, events not
    in the database yet, included): each clock_paused/clock_resumed carries the moment
    ("at", ISO 8601) the vacation began or ended.
    """
    total, paused_at = timedelta(0), None
    written = game.events.filter(
        type__in=rules.CLOCK_EVENTS, data__seat=position, seq__lte=upto
    ).order_by("seq")
    clock = [*written] + [
        event
        for event in unwritten
        if event.type in rules.CLOCK_EVENTS and event.data["seat"] == position and event.seq <= upto
    ]
    for event in clock:
        at = datetime.fromisoformat(event.data["at"])
        if event.type == rules.CLOCK_PAUSED:
            paused_at = paused_at or at
        elif paused_at is not None:
            total += max(at - max(paused_at, since), timedelta(0))
            paused_at = None
    return None if paused_at is not None else total


def differences(game: Game, projection: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """Return {field: (stored, expected)} for every column where ``game`` differs."""
    return {
        name: (getattr(game, name), value)
        for name, value in projection.items()
        if getattr(game, name) != value
    }
