"""Bots at the table: bot seats, seats on autopilot, and turns that ran out of time.

A bot's move goes through the same write path as a person's, with the version it saw, so
a bot never overtakes a move that got there first. Bot turns are played in a loop by one
task, a bounded number at a time, so that a table of bots neither recurses (tasks run
in-process on the embedded defaults) nor holds a worker for a whole game.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Sequence
from datetime import datetime

from games.bots import BOTS, COVER_BOT, DEFAULT_BOT, Bot
from games.derived import projection, snapshots
from games.models import Game, Seat
from games.services import plans
from games.services.event_log import GameMovedOn, seats_at_table
from games.services.moves import MoveRequest, make_move
from helpers import clock_source

logger = logging.getLogger(__name__)

# A move event's "played_by" when a bot played a person's turn.
PLAYED_BY_BOT = "bot"

# Set while this thread plays bot turns in a loop: the commits it makes need no new task.
_playing: contextvars.ContextVar[bool] = contextvars.ContextVar("playing_bots", default=False)


def is_bot_seat(seat: Seat) -> bool:
    """Whether a bot plays this seat: a bot's own seat, or a player's on autopilot."""
    return seat.is_bot or seat.autopilot


def bot_for(seat: Seat) -> Bot:
    """The bot that plays ``seat``; a person's seat gets the cover bot, so that a seat
    left to a bot is never an advantage."""
    level = (seat.bot_level or DEFAULT_BOT) if seat.is_bot else COVER_BOT
    try:
        return BOTS[level]
    except KeyError:
        raise ValueError(
            f"Seat {seat.pk} asks for the bot {level!r}; the bots are {', '.join(sorted(BOTS))}"
        ) from None


def play_turn(game: Game, seat: Seat, expected_version: int, *, reason: str = "bot") -> Game | None:
    """Have ``seat``'s bot play its turn if the game is still at ``expected_version``;
    None if it moved on, which is never an error: someone else moved first."""
    try:
        request = MoveRequest.read(Game.objects.get(pk=game.pk), seat, expected_version)
    except GameMovedOn:
        return None
    state = request.before.state
    if state.seat_to_move != seat.position:
        return None
    move = bot_for(seat)(state, seat.position)
    try:
        played_by = None if seat.is_bot else PLAYED_BY_BOT
        game = make_move(request, move, played_by=played_by)
    except GameMovedOn:
        return None
    logger.info(
        "bot moved",
        extra={"game": game.pk, "seat": seat.position, "version": game.version, "reason": reason},
    )
    return game


def bot_to_move(game: Game, seats: Sequence[Seat]) -> Seat | None:
    """The seat to move, if the game is on and a bot plays that seat."""
    if game.status != Game.Status.ACTIVE or game.seat_to_move is None:
        return None
    seat = seats[game.seat_to_move]
    return seat if is_bot_seat(seat) else None


def play_bot_turns(
    game_id: int, version: int, *, limit: int, now: datetime | None = None
) -> tuple[int, Game | None]:
    """Play bot and plan turns of game ``game_id`` from ``version`` on, up to ``limit``;
    the turns played and the game as left. Running it twice for one version plays once."""
    played = 0
    token = _playing.set(True)
    try:
        game = Game.objects.filter(pk=game_id).first()
        while game is not None and played < limit and game.version == version:
            seats = seats_at_table(game)
            moment = now or clock_source.now()
            seat = turn_to_play(game, seats)
            if seat is None or turn_due(game, seat, seats, now=moment) > moment:
                break  # nothing to play, or a person may still take their move back
            if is_bot_seat(seat):
                reason = "autopilot" if seat.autopilot else "bot"
                moved = play_turn(game, seat, version, reason=reason)
            else:
                moved = plans.play_turn(game, seat, version)
            if moved is None:
                break
            game, version = moved, moved.version
            played += 1
    finally:
        _playing.reset(token)
    return played, game


def seat_for_bot_task(game: Game, seats: Sequence[Seat]) -> Seat | None:
    """The seat whose turn a commit to ``game`` should queue a task for: a bot's or a
    plan's is to move, and no loop in this thread is already playing them."""
    return None if _playing.get() else turn_to_play(game, seats)


def turn_to_play(game: Game, seats: Sequence[Seat]) -> Seat | None:
    """The seat to move, if a bot or the seat's build plan plays its turn."""
    return bot_to_move(game, seats) or plans.planned_seat(game, seats)


def turn_due(
    game: Game, seat: Seat, seats: Sequence[Seat], now: datetime | None = None
) -> datetime:
    """When the turn of ``seat`` (as ``turn_to_play`` gave it) is due: a bot's at the
    game's deadline; a plan's after the take-back window, keeping its seat's deadline
    should the plan stop."""
    now = now or clock_source.now()
    if is_bot_seat(seat):
        return game.deadline or now
    last = game.events.order_by("-seq").first()
    take_backs = snapshots.current(game).state.options.take_backs
    return projection.take_back_until(take_backs, last, seats) or now
