"""Built-in players. Bots are players, not rules: they live beside the engine and use only
its public names (``games.rules``), and see only what their seat may see: the board, the
built track, the start markers, the scores and their own cities, never another seat's hand.

``BOTS`` maps each bot's name (what ``Seat.bot_level`` holds) to its function
``(state, seat) -> Move``, weakest first: the levels a player chooses from (easy, normal
(the greedy bot) and strong). ``simulate`` plays a whole game between bots.
"""

from __future__ import annotations

from .easy import easy_move
from .greedy import greedy_move
from .simulate import Bot, simulate
from .strong import strong_move, strong_suggestions

BOTS: dict[str, Bot] = {
    "easy": easy_move,
    "greedy": greedy_move,
    "strong": strong_move,
}

# The bot that covers a timed-out turn or a seat on autopilot: the best we have.
DEFAULT_BOT = "strong"

__all__ = [
    "BOTS",
    "DEFAULT_BOT",
    "Bot",
    "easy_move",
    "greedy_move",
    "simulate",
    "strong_move",
    "strong_suggestions",
]
