"""Bots at the table: bot seats, seats on autopilot, and turns that ran out of time.

A bot's move goes through the same write path as a person's (``services.submit_move``),
with the version it saw, so a bot never overtakes a move that got there first.

Bot seats move promptly: after every commit, ``games.receivers.queue_bot_turn`` looks at
who is to move and, for a bot, queues the ``play_bot_turn`` task. That task plays bot
turns one after the other in a loop until a person is to move, a bounded number at a time,
so that a table of bots neither recurses (tasks run in-process on the embedded defaults)
nor holds a worker for a whole game.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Sequence

from django.utils import timezone

from games.bots import BOTS, COVER_BOT, DEFAULT_BOT, Bot
from games.models import Game, Seat
from games.services import plans
from games.services.event_log import GameMovedOn, load_state
from games.services.moves import submit_move

logger = logging.getLogger(__name__)

# The value of a move event's "played_by" key when a bot played a person's turn (the
# record format's readers ignore keys they do not know; build plans write "plan").
PLAYED_BY_BOT = "bot"

# Set while this thread plays bot turns in a loop: the commits it makes need no new task.
_playing: contextvars.ContextVar[bool] = contextvars.ContextVar("playing_bots", default=False)


def is_bot_seat(seat: Seat) -> bool:
    """Whether a bot plays this seat: a bot's own seat, or a player's on autopilot."""
    return seat.is_bot or seat.autopilot


def bot_for(seat: Seat) -> Bot:
    """The function that plays ``seat``: a bot seat's ``bot_level`` (the strongest bot
    without one); for a person's seat (a timeout, autopilot, a player who left) the
    greedy bot, so that a seat left to a bot is never an advantage.

    Raises ValueError for a level that names no bot.
    """
    level = (seat.bot_level or DEFAULT_BOT) if seat.is_bot else COVER_BOT
    try:
        return BOTS[level]
    except KeyError:
        raise ValueError(
            f"Seat {seat.pk} asks for the bot {level!r}; the bots are {', '.join(sorted(BOTS))}"
        ) from None


def play_turn(game: Game, seat: Seat, expected_version: int, *, reason: str = "bot") -> Game | None:
    """Have ``seat``'s bot play its turn, if the game is still at ``expected_version``.

    ``reason`` says why a bot moves ("bot" for a bot's seat, "autopilot", "timeout"); it
    goes to the log. Returns the game after the move, or None if the game moved on (or is
    not waiting for this seat), which is never an error: someone else moved first.
    """
    game = Game.objects.get(pk=game.pk)
    if game.version != expected_version:
        return None
    state = load_state(game)
    if state.seat_to_move != seat.position:
        return None
    move = bot_for(seat)(state, seat.position)
    try:
        # A turn a bot plays for a person is marked so in the log and the record.
        played_by = None if seat.is_bot else PLAYED_BY_BOT
        game = submit_move(game, seat, move, expected_version, played_by=played_by)
    except GameMovedOn:
        return None
    logger.info(
        "bot moved",
        extra={"game": game.pk, "seat": seat.position, "version": game.version, "reason": reason},
    )
    return game


def bot_to_move(game: Game, seats: Sequence[Seat] | None = None) -> Seat | None:
    """The seat to move, if the game is on and a bot plays that seat. ``seats``: the
    game's seats in position order when already read (else the one to move is read)."""
    if game.status != Game.Status.ACTIVE or game.seat_to_move is None:
        return None
    if seats is not None:
        seat = seats[game.seat_to_move]
    else:
        seat = game.seats.filter(position=game.seat_to_move).first()
    return seat if seat is not None and is_bot_seat(seat) else None


def play_bot_turns(game_id: int, version: int, *, limit: int) -> tuple[int, Game | None]:
    """Play bot turns of game ``game_id`` from ``version`` on, while a bot is to move.

    Stops when a person is to move, the game ends, another move gets there first, the
    bot's turn is not due yet (it waits after a person's move in a game with take-backs),
    or after ``limit`` turns. Returns the turns played and the game as it was left (None if gone).
    Running it twice for one version plays once.
    """
    played = 0
    token = _playing.set(True)
    try:
        game = Game.objects.filter(pk=game_id).first()
        while game is not None and played < limit and game.version == version:
            if game.deadline is not None and game.deadline > timezone.now():
                break  # a person may still take their move back: the minute scan plays it
            seat = bot_to_move(game)
            if seat is not None:
                reason = "autopilot" if seat.autopilot else "bot"
                moved = play_turn(game, seat, version, reason=reason)
            elif (seat := plans.planned_seat(game)) is not None:
                moved = plans.play_turn(game, seat, version)  # a build plan's turn
            else:
                break
            if moved is None:
                break
            game, version = moved, moved.version
            played += 1
    finally:
        _playing.reset(token)
    return played, game


def needs_bot_task(game: Game, seats: Sequence[Seat]) -> bool:
    """Whether a commit to ``game`` should queue a bot's turn: a bot (or a seat's build
    plan) is to move, and no
    loop in this thread is already playing the game's bot turns (see the module's notes).

    ``seats``: the game's seats in position order, as the commit left them. A seat that
    changes hands afterwards does so in a commit of its own, which asks again; the task
    itself plays only if a bot is still to move."""
    return not _playing.get() and turn_to_play(game, seats) is not None


def turn_to_play(game: Game, seats: Sequence[Seat] | None = None) -> Seat | None:
    """The seat to move, if a bot or the seat's build plan plays its turn."""
    return bot_to_move(game, seats) or plans.planned_seat(game, seats)
