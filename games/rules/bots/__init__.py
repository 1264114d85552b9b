"""Built-in players. A bot sees only what its seat may see: the board, the built track, the
start markers, the scores and its own cities, never another seat's hand.

``BOTS`` maps each bot's name (what ``Seat.bot_level`` holds) to its function
``(state, seat) -> Move``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..moves import Move
from ..state import GameState
from .greedy import choose_start, greedy_move
from .strong import strong_move

Bot = Callable[[GameState, int], Move]

BOTS: dict[str, Bot] = {
    "greedy": greedy_move,
    "strong": strong_move,
}

# The bot that covers a timed-out turn or a seat on autopilot: the best we have.
DEFAULT_BOT = "strong"

__all__ = [
    "BOTS",
    "DEFAULT_BOT",
    "Bot",
    "choose_start",
    "greedy_move",
    "strong_move",
]
