"""What a reply to a your-turn email asks for: the grammar, said in one line in the email.

A reply is a move only when its first line (once quoted text and signatures are cut off)
is ``1``, ``2`` or ``3`` (one of the email's suggestions) or ``move:`` (``zug:`` in
German, and either in every language) followed by what to
play, as the board page names it: one or two lines ("Denver to 1 east of Denver"),
separated by ";" or ","; or, for the first turn of a round, the point for the start
marker. Anything else is not a move (it goes to the table as talk). A move line that
cannot be read is answered, never guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext, pgettext

from games.words import narration

# The words that start a move, in every language the site speaks ("move" and its
# translations in the catalogues: tests check each is here).
MOVE_WORDS = ("move", "zug")


def coloured_marks() -> tuple[str, ...]:
    """How a line is marked as coloured track, as the board page writes it in every
    language ("(coloured)", "(Farbschiene)"), lower case."""
    marks = []
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            marks.append(narration.coloured("").strip().lower())
    return tuple(marks)


def is_coloured(name: str) -> bool:
    """Whether a line named in a reply is marked as coloured track."""
    return any(mark in name.lower() for mark in coloured_marks())


def move_word() -> str:
    """The word that starts a move, in the active language."""
    # Translators: the keyword a reply starts with to play a move, "move: Denver to ...";
    # one short word, no colon. Replies are read with the keyword of every language.
    return pgettext("reply keyword", "move")


def hint(example_line: str) -> str:
    """How to play by reply, in the active language, with a line of the board as example."""
    return gettext(
        "To play by reply, make the first line of your reply 1, 2 or 3 (one of the "
        'suggestions), or "%(keyword)s:" and your lines (such as "%(keyword)s: %(example)s"). '
        "Anything else you write goes to the table as a message."
    ) % {"keyword": move_word(), "example": example_line}


PICK = re.compile(r"^#?\s*(\d+)\s*[.):]?$")
MOVE = re.compile(r"^(?:" + "|".join(MOVE_WORDS) + r")\s*:\s*(.*)$", re.IGNORECASE)


@dataclass(frozen=True)
class Pick:
    """``number``: which suggestion (1 to 3, or another number the answer refuses)."""

    number: int


@dataclass(frozen=True)
class Named:
    """The lines (or the start marker's point) the reply names, as written."""

    names: tuple[str, ...]


def first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def read(text: str) -> Pick | Named | None:
    """What the reply ``text`` (quotes cut off) asks to play, or None when it is not a
    move."""
    line = first_line(text)
    if match := PICK.match(line):
        return Pick(int(match[1]))
    if match := MOVE.match(line):
        names = tuple(part.strip() for part in re.split(r"[;,]", match[1]) if part.strip())
        return Named(names)
    return None
