"""Consent at the table by reply: a reply whose whole first line is one of these commands
takes back the player's last turn, gives the player to move 24 more hours, agrees to end
the game, or nudges the player to move (games.services.consent), in English or German:

    take back / undo / zurücknehmen      more time / mehr Zeit
    end game / spiel beenden             nudge / anstupsen

Nothing else is a command, so table talk that merely mentions one stays talk.
"""

from __future__ import annotations

import re

from django.utils.translation import gettext_lazy as _

from games.models import Seat
from games.services import consent

TAKE_BACK = "take-back"
MORE_TIME = "more-time"
END_GAME = "end-game"
NUDGE = "nudge"

COMMANDS = {
    "take back": TAKE_BACK,
    "undo": TAKE_BACK,
    "zurücknehmen": TAKE_BACK,
    "more time": MORE_TIME,
    "mehr zeit": MORE_TIME,
    "end game": END_GAME,
    "spiel beenden": END_GAME,
    "nudge": NUDGE,
    "anstupsen": NUDGE,
}

ACTIONS = {
    TAKE_BACK: consent.take_back,
    MORE_TIME: consent.give_time,
    END_GAME: consent.agree_to_end,
    NUDGE: consent.nudge,
}


# What the confirmation of a command played by reply says.
DONE = {
    TAKE_BACK: _("Your last turn is taken back: it is your move again."),
    MORE_TIME: _("The player to move has 24 more hours."),
    END_GAME: _("Your agreement to end the game is recorded: it ends once everyone agrees."),
    NUDGE: _("Your nudge is on its way to the player to move."),
}


def read(text: str) -> str | None:
    """The command a reply's first line is, or None (then it is a move or talk)."""
    first = text.strip().splitlines()[0] if text.strip() else ""
    words = re.sub(r"\s+", " ", first.strip().strip(".!").lower())
    return COMMANDS.get(words)


def act(seat: Seat, command: str) -> str | None:
    """Do ``command`` for ``seat``'s player; None when done, else why not (in the active
    language)."""
    try:
        ACTIONS[command](seat)
    except consent.Refused as refused:
        return str(refused)
    return None
