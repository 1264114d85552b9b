"""The Game row's projection columns, computed from the engine's state.

The write path and ``rebuild_projections`` both call it, so they never disagree.
"""

import hashlib
import json
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings

from games import rules
from games.derived import sleep
from games.models import Event, Game, Seat

SLEEP_EVENTS = (*rules.CLOCK_EVENTS, rules.QUIET_HOURS_SET)

# A bot's or a plan's turn waits this long after a person's move, for a take-back.
TAKE_BACK_WINDOW = timedelta(minutes=2)
# What a "more time" gives the player to move (games.services.consent).
TIME_GIVEN_HOURS = 24


def log_digest(events: Iterable[dict], previous: str = "") -> str:
    """Each event chained onto ``previous``: a copy keyed by it is never taken for another
    log's, even when a database restored from backup reuses version numbers."""
    digest = previous
    for event in events:
        text = json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        digest = hashlib.sha256(f"{digest}\n{text}".encode()).hexdigest()
    return digest


def project(
    game: Game,
    state: Any,
    last_event: Event,
    seats: Sequence[Seat],
    *,
    clock: Sequence[dict],
    unwritten: Sequence[Event],
) -> dict[str, Any]:
    """The projection columns for ``game`` at ``state``, reached by ``last_event``.

    ``unwritten``: the log's last events not yet in the database (the write path projects
    before it writes them; a rebuild has none).
    """
    if state.is_over:
        status = Game.Status.FINISHED
    elif state.round == 0:
        status = Game.Status.SETUP
    else:
        status = Game.Status.ACTIVE
    seat_to_move = state.seat_to_move
    deadline = None
    if seat_to_move is not None and _bot_plays(seat_to_move, seats):
        # Due at once, so the minute scan plays it if its task was lost; after a
        # person's move it waits for a possible take-back.
        deadline = (
            take_back_until(state.options.take_backs, last_event, seats) or last_event.created_at
        )
    elif seat_to_move is not None and game.time_per_move is not None:
        deadline = _deadline(game, seat_to_move, last_event, clock, unwritten)
    return {
        "status": status.value,
        "round": state.round,
        "seat_to_move": seat_to_move,
        "deadline": deadline,
        "version": last_event.seq,
        "scores": list(state.scores),
        "finished_at": last_event.created_at if state.is_over else None,
    }


def _deadline(
    game: Game,
    seat_to_move: int,
    last_event: Event,
    clock: Sequence[dict],
    unwritten: Sequence[Event],
):
    """When the player to move must have moved, or None while their clock is stopped
    (after a timeout in a game that waits, or on vacation)."""
    turn_start = last_event
    if game.pk and last_event.type in rules.STARTS_NO_TURN:
        # Vacations and consents at the table do not start a new turn.
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
        since = turn_start.created_at
        rest = sleep_from(game, seat_to_move, clock)
        if rest.paused_now:
            return None
        if rest.quiet is not None or rest.weekend_zone is not None:
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


def take_back_until(take_backs: bool, last_event: Event, seats: Sequence[Seat]) -> datetime | None:
    """Until when a person may take back ``last_event``; a bot's or plan's turn waits
    until then. None when nothing waits."""
    if take_backs and _persons_move(last_event, seats):
        return last_event.created_at + TAKE_BACK_WINDOW
    return None


def _persons_move(last_event: Event, seats: Sequence[Seat]) -> bool:
    """Whether ``last_event`` is a move a person made on their own (not a bot for them)."""
    if last_event.type not in rules.MOVE_EVENTS or "played_by" in last_event.data:
        return False
    return not _bot_plays(last_event.data["seat"], seats)


def sleep_of(game: Game, position: int, *, upto: int) -> sleep.Sleep:
    """``sleep_from`` with the clock events read from the database up to ``upto``."""
    rows = game.events.filter(type__in=SLEEP_EVENTS, data__seat=position, seq__lte=upto)
    return sleep_from(game, position, [row.as_engine_event() for row in rows.order_by("seq")])


def sleep_from(game: Game, position: int, clock: Iterable[dict]) -> sleep.Sleep:
    """When the seat's clock sleeps, from the log's ``clock`` events: the last
    ``quiet_hours_set`` wins, else the site's default quiet hours in the game's zone."""
    events = [e for e in clock if e["type"] in SLEEP_EVENTS and e.get("seat") == position]
    zone, quiet = game.time_zone or "UTC", sleep.parse_quiet(*settings.RAILMAIL_QUIET_HOURS)
    for event in events:
        if event["type"] == rules.QUIET_HOURS_SET:
            zone = event.get("zone") or zone
            quiet = sleep.parse_quiet(event.get("start"), event.get("end"))
    paused = [
        (e["type"], datetime.fromisoformat(e["at"]))
        for e in events
        if e["type"] in rules.CLOCK_EVENTS
    ]
    last_clock = paused[-1][0] if paused else None
    return sleep.Sleep(
        zone=zone,
        quiet=quiet,
        weekend_zone=(game.time_zone or "UTC") if game.weekend_pause else None,
        vacations=tuple(sleep.vacations_from(paused, rules.CLOCK_PAUSED)),
        paused_now=last_clock == rules.CLOCK_PAUSED,
    )


def _bot_plays(position: int, seats: Sequence[Seat]) -> bool:
    """Whether a bot plays the seat: a bot's own seat, or one it keeps after timeouts."""
    return seats[position].is_bot or seats[position].autopilot


def differences(game: Game, projection: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """{field: (stored, expected)} where ``game`` differs."""
    return {
        name: (getattr(game, name), value)
        for name, value in projection.items()
        if getattr(game, name) != value
    }
