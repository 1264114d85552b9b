"""Text people type that ends up in email headers, and lists of names in a sentence.

A line break in a header injects another, so forms refuse control characters and header
builders remove them from text that came in some other way.
"""

import unicodedata
from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.utils.translation import gettext

# Zl and Zp too: some mail software breaks lines on them.
CONTROL_CATEGORIES = frozenset({"Cc", "Zl", "Zp"})


def is_control(character: str) -> bool:
    return unicodedata.category(character) in CONTROL_CATEGORIES


def refuse_control_characters(value: str) -> None:
    """A form validator: no line breaks, tabs or other control characters."""
    if any(is_control(character) for character in value):
        raise ValidationError(
            "Use one line of ordinary text: no line breaks, tabs or other control characters.",
            code="control_characters",
        )


def one_line(text: str) -> str:
    """``text`` safe for an email header: controls and runs of spaces become one space."""
    return " ".join("".join(" " if is_control(c) else c for c in text).split())


def and_list(names: Iterable) -> str:
    """Names in a sentence: "Ada", "Ada and Bob", "Ada, Bob and Cy" ("Ada, Bob und Cy")."""
    names = [str(name) for name in names]
    if len(names) < 2:
        return "".join(names)
    # Translators: the end of a list in a sentence, "Ada, Bob and Cy".
    return gettext("%(names)s and %(last)s") % {"names": ", ".join(names[:-1]), "last": names[-1]}
