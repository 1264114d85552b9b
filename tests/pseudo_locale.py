"""A pseudo-language for finding text that is not marked for translation (issue 19).

Its catalogue is the German one's strings with every ASCII letter swapped for an accented
look-alike ("Your turn" -> "Ýóúŕ ţúŕñ"), placeholders and markup left as they are. A page
or email rendered in it shows plain ASCII words only where text was not marked (or is a
name or a number the test allows).
"""

from __future__ import annotations

import html
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import polib

GERMAN = Path(__file__).resolve().parent.parent / "pbem" / "locale" / "de" / "LC_MESSAGES"
CODE = "qps"  # Microsoft's pseudo-locale code: no real language has it
LOOKALIKE = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "áƀçďéƒǧĥíĵķĺɱñóƥʠŕšţúʋŵẋýžÁƁÇĎÉƑǦĤÍĴĶĹṀÑÓƤʠŔŠŢÚṼŴẊÝŽ",
)
# Left alone: placeholders (%(name)s, %s), markup (<a href="...">), entities (&amp;), and
# Django's date format letters (a translated date format must stay a format).
KEEP = re.compile(r"%\(\w+\)[sd]|%[sd]|<[^>]*>|&\w+;|\{[^}]*\}")


def pseudo(text: str) -> str:
    out, last = [], 0
    for match in KEEP.finditer(text):
        out.append(text[last : match.start()].translate(LOOKALIKE))
        out.append(match[0])
        last = match.end()
    out.append(text[last:].translate(LOOKALIKE))
    return "".join(out)


def build(directory: Path) -> Path:
    """Write and compile the pseudo-language's catalogue under ``directory`` (a locale
    path); returns it."""
    target = directory / CODE / "LC_MESSAGES"
    target.mkdir(parents=True)
    catalogue = polib.pofile(str(GERMAN / "django.po"))
    for entry in catalogue:
        if entry.msgctxt == "date and time":
            entry.msgstr = entry.msgid  # a format, not words
        elif entry.msgid_plural:
            entry.msgstr_plural = {0: pseudo(entry.msgid), 1: pseudo(entry.msgid_plural)}
        else:
            entry.msgstr = pseudo(entry.msgid)
        entry.flags = [flag for flag in entry.flags if flag != "fuzzy"]
    catalogue.metadata["Language"] = CODE
    catalogue.metadata["Plural-Forms"] = "nplurals=2; plural=(n != 1);"
    catalogue.save(str(target / "django.po"))
    subprocess.run(
        ["msgfmt", "-o", str(target / "django.mo"), str(target / "django.po")], check=True
    )
    return directory


class _Text(HTMLParser):
    """The text a reader meets in a page: text nodes and the attributes read aloud or
    shown (alt, title, aria-label, placeholder, a submit input's value), not scripts or
    styles."""

    SHOWN = {"alt", "title", "aria-label", "placeholder"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.hidden += 1
        for name, value in attrs:
            shown_value = name == "value" and dict(attrs).get("type") in ("submit", "button")
            if value and (name in self.SHOWN or (tag == "input" and shown_value)):
                self.parts.append(value)

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.hidden -= 1

    def handle_data(self, data):
        if not self.hidden:
            self.parts.append(data)


def shown_text(markup: str) -> str:
    parser = _Text()
    parser.feed(markup)
    return html.unescape(" ".join(parser.parts))


WORD = re.compile(r"[A-Za-z]{2,}")
# Words Django's own catalogue translates (dates and "2 days, 3 hours"): marked there.
DJANGO_WORDS = set(
    [
        "Mon",
        "Tue",
        "Wed",
        "Thu",
        "Fri",
        "Sat",
        "Sun",
        "Jan",
        "Feb",
        "Mar",
        "Apr",
        "May",
        "Jun",
        "Jul",
        "Aug",
        "Sep",
        "Oct",
        "Nov",
        "Dec",
        "minute",
        "minutes",
        "hour",
        "hours",
        "day",
        "days",
        "week",
        "weeks",
        "month",
        "months",
        "year",
        "years",
    ]
)


def unmarked(text: str, allowed: list[str]) -> list[str]:
    """The plain ASCII words in ``text`` once the ``allowed`` names are taken out: text
    that no translator could have reached."""
    # Addresses and links are not words to translate (taken out first: a name may be
    # part of a link's token).
    text = re.sub(r"\S+@\S+|https?://\S+", " ", text)
    for name in sorted(allowed, key=len, reverse=True):
        text = text.replace(name, " ")
    text = re.sub(r"/\S*", " ", text)  # paths
    return sorted(set(WORD.findall(text)) - DJANGO_WORDS)
