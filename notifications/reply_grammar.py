"""What a reply to a game email asks for: one grammar for what the emails print and what
replies may say.

A move is a suggestion's number or ``move:`` (in any language) and the lines as the
emails name them. Point names may hold "and" themselves, so a move is read every way
its joins allow: exactly one reading is played, otherwise the player is asked, never
guessed for. A first line that looks like a mistyped command is answered, never posted.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from functools import cache

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext, ngettext, pgettext

from games import rules
from games.words import narration, places
from helpers.text import and_list

# Every language's word for "move" (tests check the catalogues against it).
MOVE_WORDS = ("move", "zug")


def coloured_marks() -> tuple[str, ...]:
    """How the board page marks a line as coloured track, in every language, lower case."""
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


def move_text(move: rules.Move, board: rules.Board) -> str:
    """A move as a reply writes it after "move:", in the active language."""
    if isinstance(move, rules.PlaceStart):
        return places.point_name(board, board.point_index[move.point])
    return and_list(_line_words(move, board))


def _line_words(move: rules.Move, board: rules.Board) -> list[str]:
    """The names of the lines a move builds (none for another move)."""
    if not isinstance(move, rules.Build):
        return []
    words = []
    for n, line in enumerate(move.lines):
        name = places.line_name(board, board.line_id(line))
        words.append(narration.coloured(name) if n in move.exclusive else name)
    return words


def hint(example: str) -> str:
    """How to play by reply, with ``example``, a move legal for the reader."""
    return gettext(
        "To play by reply, write on the first line of your reply 1, 2 or 3 (one of the "
        'suggestions), or "%(keyword)s:" and your move: one or two lines, each by its two '
        'ends, joined by "and"; on the first turn of a round, the point for your start '
        'marker. For example: "%(keyword)s: %(example)s". The move ends at the first blank '
        "line. Anything else you write goes to the table as a message."
    ) % {"keyword": move_word(), "example": example}


PICK = re.compile(r"^#?\s*(\d+)\s*[.):]?$")
MOVE = re.compile(r"^(?:" + "|".join(MOVE_WORDS) + r")\s*:\s*(.*)$", re.IGNORECASE | re.DOTALL)
KEYWORD_LIKE = re.compile(r"^([^\W\d_]{2,7})(?=\s|:|$)")


@dataclass(frozen=True)
class Pick:
    """A suggestion picked by number, and the words after it (ignored)."""

    number: int
    ignored: str = ""


@dataclass(frozen=True)
class Named:
    """The move as written after the keyword, and the words after it (ignored)."""

    text: str
    ignored: str = ""


@dataclass(frozen=True)
class Mistyped:
    """A first line that looks like a command the grammar does not read."""

    line: str


def _blocks(text: str) -> list[list[str]]:
    """``text`` as paragraphs (runs of lines without a blank line), each a list of lines."""
    blocks: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.strip():
            blocks[-1].append(line.strip())
        elif blocks[-1]:
            blocks.append([])
    return [block for block in blocks if block]


def _after(blocks: list[list[str]], index: int, skip_lines: int) -> str:
    """The words from line ``skip_lines`` of block ``index`` on."""
    if index >= len(blocks):
        return ""
    rest = [blocks[index][skip_lines:]] + blocks[index + 1 :]
    return "\n\n".join("\n".join(block) for block in rest if block).strip()


def read(text: str, board: rules.Board | None = None) -> Pick | Named | Mistyped | None:
    """What the reply's own words ``text`` ask to play, or None when they are not a move."""
    blocks = _blocks(text)
    for index, block in enumerate(blocks):
        first = block[0]
        if match := PICK.match(first):
            return Pick(int(match[1]), _after(blocks, index, 1))
        if match := MOVE.match(first):
            # Up to the first blank line: mail programs wrap long lines.
            written = " ".join(" ".join([match[1], *block[1:]]).split())
            if pick := PICK.match(written):
                return Pick(int(pick[1]), _after(blocks, index + 1, 0))
            return Named(written, _after(blocks, index + 1, 0))
    if blocks and looks_mistyped(" ".join(blocks[0]), board):
        return Mistyped(blocks[0][0])
    return None


def looks_mistyped(paragraph: str, board: rules.Board | None = None) -> bool:
    """Whether ``paragraph`` looks like a move the grammar does not read ("mvoe: ...",
    or with ``board``, "Denver to Omaha")."""
    paragraph = " ".join(paragraph.split())
    if board is not None and places.only_place_words(board, bare_move(paragraph)):
        return True
    match = KEYWORD_LIKE.match(paragraph)
    if match is None:
        return False
    word, rest = match[1].lower(), paragraph[len(match[1]) :].lstrip()
    close = max(difflib.SequenceMatcher(None, word, keyword).ratio() for keyword in MOVE_WORDS)
    if rest.startswith(":") and close >= 0.6:
        return True
    rest = rest.lstrip(":;. ")
    if board is None or not rest or close < 0.6:
        return False
    return places.only_place_words(board, bare_move(rest))


# Reading a move against the board.


class Unclear(ValueError):
    """A move that cannot be read, or reads more than one way (``readings``, in words)."""

    def __init__(self, message: str, readings: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.readings = readings


JOINS = re.compile(r"\s*[;,&+]\s*|\s+(?:and|und|plus)\s+", re.IGNORECASE)


def _template_pattern(template: str) -> re.Pattern:
    """A suggestion's wording as a pattern whose "move" group is the move."""
    pattern = re.escape(template)
    for name in ("lines", "city", "point"):
        gap = re.escape(f"%({name})s")
        group = "(?P<move>.+)" if "(?P<move>" not in pattern else ".+"
        pattern = pattern.replace(gap, group)
    pattern = pattern.replace(re.escape("%(count)s"), r"\d+")
    return re.compile(r"^" + pattern.replace(r"\ ", r"\s*") + r"\s*\.?$", re.IGNORECASE)


def _suggestion_patterns() -> tuple[re.Pattern, ...]:
    """The wordings of suggestions in every language, as patterns."""
    return _patterns_for(tuple(language for language, _name in settings.LANGUAGES))


@cache
def _patterns_for(languages: tuple[str, ...]) -> tuple[re.Pattern, ...]:
    found = []
    for language in languages:
        with translation.override(language):
            templates = [
                gettext("Start marker in %(city)s"),
                gettext("Start marker at %(point)s"),
            ]
            for count in (1, 2):
                templates.append(
                    ngettext(
                        "%(lines)s, 1 track, towards %(city)s",
                        "%(lines)s, %(count)s tracks, towards %(city)s",
                        count,
                    )
                )
                templates.append(
                    ngettext("%(lines)s, 1 track", "%(lines)s, %(count)s tracks", count)
                )
        found.extend(_template_pattern(template) for template in templates)
        with translation.override(language):
            found.extend(_described_patterns())
    return tuple(found)


def _described_patterns() -> list[re.Pattern]:
    """Patterns of games.words.suggestions' wordings; only a description's own opening
    words end the move, since a comma may also join two lines."""
    heads = {
        re.split(r"%\(|:", template)[0].strip()
        for template in (
            gettext("joins %(cities)s"),
            gettext("a double line toward %(city)s: the whole turn"),
            gettext("a double line: the whole turn"),
            gettext("one track toward %(city)s"),
            gettext("one track"),
            gettext("two tracks toward %(city)s"),
            gettext("two tracks"),
        )
    }
    opening = "|".join(re.escape(head) for head in sorted(heads, key=len, reverse=True) if head)
    patterns = [re.compile(rf"^(?P<move>.+?)\s*,\s*(?:{opening})\b.*$", re.IGNORECASE)]
    for where in (gettext("Start marker in %(city)s"), gettext("Start marker at %(point)s")):
        gap = re.escape(where)
        for name in ("city", "point"):
            gap = gap.replace(re.escape(f"%({name})s"), "(?P<move>.+?)")
        gap = gap.replace(r"\ ", r"\s*")
        patterns.append(re.compile(rf"^{gap}\s*:\s.*$", re.IGNORECASE))
    return patterns


def bare_move(text: str) -> str:
    """``text`` without a copied suggestion's words around the move."""
    text = " ".join(text.split())
    for pattern in _suggestion_patterns():
        if match := pattern.match(text):
            return match["move"].strip()
    return text.rstrip(". ")


def _parts(board: rules.Board, text: str, placing: bool):
    """Each reading of ``text`` that names only real places, and the likeliest failure's reason."""
    joins = list(JOINS.finditer(text))
    splits: list[tuple[str, ...]] = [(text,)]
    if not placing:
        splits += [(text[: join.start()], text[join.end() :]) for join in joins]
    found: list[tuple[tuple[str, ...], tuple[int, ...]]] = []
    errors: list[tuple[int, str]] = []
    for names in splits:
        names = tuple(name.strip() for name in names)
        if not all(names):
            continue
        try:
            if placing:
                if places.looks_like_a_line(names[0]):
                    raise places.UnknownPlace(
                        gettext(
                            "Your first turn of a round places your start marker: name one point."
                        )
                    )
                ids = (places.point_named(board, names[0]),)
            else:
                ids = tuple(places.line_named(board, name) for name in names)
        except places.UnknownPlace as unknown:
            # The likeliest reading says why: the one whose parts each name two ends.
            looks = sum(places.looks_like_a_line(name) for name in names)
            errors.append((-looks if len(names) == 1 else -looks - 1, str(unknown)))
            continue
        found.append((names, ids))
    errors.sort(key=lambda error: error[0])
    return found, (errors[0][1] if errors else "")


def requested(state: rules.GameState, text: str) -> rules.Move:
    """The move ``text`` asks for in ``state``, or Unclear saying why not."""
    board = state.board
    text = bare_move(text)
    placing = state.phase == rules.PLACING
    if not text:
        raise Unclear(gettext("After the keyword, write your move."))
    found, why = _parts(board, text, placing)
    moves: dict[rules.Move, str] = {}
    for names, ids in found:
        if placing:
            move: rules.Move = rules.PlaceStart(board.points[ids[0]])
        else:
            if len(set(ids)) != len(ids):
                continue
            coloured = frozenset(n for n, name in enumerate(names) if is_coloured(name))
            move = rules.Build(tuple(board.line_points(line) for line in ids), coloured)
        # With ";" between the lines it reads only one way.
        moves.setdefault(move, "; ".join(_line_words(move, board)))
    if len(moves) == 1:
        return next(iter(moves))
    if len(moves) > 1:
        readings = tuple(moves.values())
        raise Unclear(
            gettext(
                "Your move reads in more than one way: %(readings)s. Write it again with "
                '";" between the lines.'
            )
            % {"readings": " / ".join(f'"{reading}"' for reading in readings)},
            readings,
        )
    if not placing and len(JOINS.findall(text)) >= 2 and _three_lines(board, text):
        raise Unclear(gettext("A turn builds one or two lines."))
    raise Unclear(why)


def _three_lines(board: rules.Board, text: str) -> bool:
    """Whether ``text`` names three or more lines."""
    parts = [part for part in JOINS.split(text) if part.strip()]
    return sum(places.looks_like_a_line(part) for part in parts) >= 3
