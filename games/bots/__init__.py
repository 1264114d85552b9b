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

# A bot seat the creator left without a level: the best we have.
DEFAULT_BOT = "strong"
# The bot that covers a person's seat (a timed-out turn, a seat on autopilot, a player who
# left): the plain one, so that walking away from a game never plays better than staying.
COVER_BOT = "greedy"

__all__ = [
    "BOTS",
    "COVER_BOT",
    "DEFAULT_BOT",
    "Bot",
    "easy_move",
    "greedy_move",
    "simulate",
    "strong_move",
    "strong_suggestions",
]
