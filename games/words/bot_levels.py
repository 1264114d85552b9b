"""The bots' levels in words: what a player chooses on the new-game form and reads beside
a bot's name on the board ("easy", "normal", "strong").

The levels are the bots of ``games.bots.BOTS``, weakest first; "normal" is the greedy
bot. A bot seat without a level is ``DEFAULT_BOT``; a person's seat left to a bot
(timeouts, autopilot, a player who left) is played by ``COVER_BOT``.
"""

from __future__ import annotations

from django.utils.translation import gettext, pgettext_lazy

from games.bots import BOTS, DEFAULT_BOT

LABELS = {
    "easy": pgettext_lazy("bot level", "Easy"),
    "greedy": pgettext_lazy("bot level", "Normal"),
    "strong": pgettext_lazy("bot level", "Strong"),
}
SEAT_WORDS = {
    "easy": pgettext_lazy("beside a bot's name on the board", "easy bot"),
    "greedy": pgettext_lazy("beside a bot's name on the board", "normal bot"),
    "strong": pgettext_lazy("beside a bot's name on the board", "strong bot"),
}
NAMES = {
    "easy": pgettext_lazy("a bot seat's name", "Easy bot"),
    "greedy": pgettext_lazy("a bot seat's name", "Normal bot"),
    "strong": pgettext_lazy("a bot seat's name", "Strong bot"),
}


def choices() -> list[tuple[str, str]]:
    """The levels a bot seat can be given, weakest first, as (value, label)."""
    return [(name, str(LABELS.get(name, name.capitalize()))) for name in BOTS]


def label(level: str) -> str:
    """A level's name: "Strong" (the autopilot's bot for none)."""
    level = level or DEFAULT_BOT
    return str(LABELS[level]) if level in LABELS else level.capitalize()


def seat_words(level: str) -> str:
    """What the board says of a bot beside its name: "strong bot"."""
    level = level or DEFAULT_BOT
    if level in SEAT_WORDS:
        return str(SEAT_WORDS[level])
    return gettext("%(level)s bot") % {"level": level}


def bot_name(level: str) -> str:
    """The name a bot seat gets when the creator gives none: "Strong bot"."""
    if level in NAMES:
        return str(NAMES[level])
    return gettext("%(level)s bot") % {"level": level.capitalize()}
