"""The Game row's projection columns, computed from the engine's state.

Used by the write path after every append and by ``manage.py rebuild_projections``,
so that the two can never disagree about what a game's columns should hold.
"""

import hashlib
import json
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Q

from games import rules
from games.derived import sleep
from games.models import Event, Game, Seat

# How long a bot's turn waits after a person's move in a game that allows take-backs.
TAKE_BACK_WINDOW = timedelta(minutes=2)
# What a "more time" gives the player to move (games.services.consent).
TIME_GIVEN_HOURS = 24


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
        # waits for a lost task. Where take-backs are allowed, it waits a little after
        # a person's move, so that the person may still take it back.
        deadline = last_event.created_at
        if state.options.take_backs and _persons_move(last_event, seats, game):
            deadline += TAKE_BACK_WINDOW
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
    if game.pk and last_event.type in rules.STARTS_NO_TURN:
        # Another seat's vacation, or this seat's, or a consent at the table (more time, a
        # nudge, an agreement to end), does not start a new turn.
        later = [
            e for e in unwritten if e.seq < last_event.seq and e.type not in rules.STARTS_NO_TURN
        ]
        turn_start = (
            max(later, key=lambda e: e.seq, default=None)
            or (
                game.events.filter(seq__lt=last_event.seq)
                .exclude(type__in=rules.STARTS_NO_TURN)
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
        # One read of the seat's clock events: its vacations and its quiet hours.
        rest = sleep_of(game, seat_to_move, upto=upto, unwritten=unwritten)
        if rest.paused_now:
            return None
        if rest.quiet is not None or rest.weekend_zone is not None:
            # The clock sleeps at night and perhaps at weekends: run it, vacations and
            # all, with the time the table gave.
            return sleep.run_clock(
                since, game.time_per_move + _given(game, turn_start, last_event, unwritten), rest
            )
        paused = sum(
            (max(end - max(start, since), timedelta(0)) for start, end in rest.vacations),
            timedelta(0),
        )
    return (
        turn_start.created_at
        + game.time_per_move
        + paused
        + _given(game, turn_start, last_event, unwritten)
    )


def _given(
    game: Game, turn_start: Event, last_event: Event, unwritten: Sequence[Event]
) -> timedelta:
    """The time the table gave the seat to move this turn."""
    if game.pk and turn_start.seq < last_event.seq:
        return timedelta(hours=TIME_GIVEN_HOURS) * time_given(
            game, after=turn_start.seq, upto=last_event.seq, unwritten=unwritten
        )
    return timedelta(0)


def time_given(game: Game, *, after: int, upto: int, unwritten: Sequence[Event] = ()) -> int:
    """How many times the table gave more time between events ``after`` and ``upto``."""
    fresh = {e.seq for e in unwritten}
    written = game.events.filter(seq__gt=after, seq__lte=upto, type=rules.TIME_GIVEN).exclude(
        seq__in=fresh
    )
    return written.count() + sum(
        1 for e in unwritten if e.type == rules.TIME_GIVEN and after < e.seq <= upto
    )


def _persons_move(last_event: Event, seats: Sequence[Seat] | None, game: Game) -> bool:
    """Whether ``last_event`` is a move a person made on their own (not a bot for them)."""
    if last_event.type not in rules.MOVE_EVENTS or "played_by" in last_event.data:
        return False
    return not _bot_plays(game, last_event.data["seat"], seats)


def sleep_of(
    game: Game, position: int, *, upto: int, unwritten: Sequence[Event] = ()
) -> sleep.Sleep:
    """When the seat's clock sleeps, as the log up to event ``upto`` says: its quiet hours
    and zone from its last ``quiet_hours_set`` event (else the site's default quiet hours
    in the game's zone), the game's weekend pause, and the seat's vacations."""
    events = [
        e
        for e in unwritten
        if e.type in (*rules.CLOCK_EVENTS, rules.QUIET_HOURS_SET)
        and e.data.get("seat") == position
        and e.seq <= upto
    ]
    written = game.events.filter(
        type__in=(*rules.CLOCK_EVENTS, rules.QUIET_HOURS_SET), data__seat=position, seq__lte=upto
    ).order_by("seq")
    seen = {e.seq for e in events}
    events = sorted([*[e for e in written if e.seq not in seen], *events], key=lambda e: e.seq)
    zone, quiet = game.time_zone or "UTC", sleep.parse_quiet(*settings.RAILMAIL_QUIET_HOURS)
    for event in events:
        if event.type == rules.QUIET_HOURS_SET:
            zone = event.data.get("zone") or zone
            quiet = sleep.parse_quiet(event.data.get("start"), event.data.get("end"))
    clock = [
        (e.type, datetime.fromisoformat(e.data["at"]))
        for e in events
        if e.type in rules.CLOCK_EVENTS
    ]
    last_clock = clock[-1][0] if clock else None
    return sleep.Sleep(
        zone=zone,
        quiet=quiet,
        weekend_zone=(game.time_zone or "UTC") if game.weekend_pause else None,
        vacations=tuple(sleep.vacations_from(clock, rules.CLOCK_PAUSED)),
        paused_now=last_clock == rules.CLOCK_PAUSED,
    )


def _bot_plays(game: Game, position: int, seats: Sequence[Seat] | None) -> bool:
    """Whether a bot plays the seat: a bot's own seat, or one it keeps after timeouts."""
    if seats is not None:
        return seats[position].is_bot or seats[position].autopilot
    if not game.pk:
        return False
    return game.seats.filter(position=position).filter(Q(is_bot=True) | Q(autopilot=True)).exists()


def differences(game: Game, projection: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """Return {field: (stored, expected)} for every column where ``game`` differs."""
    return {
        name: (getattr(game, name), value)
        for name, value in projection.items()
        if getattr(game, name) != value
    }
