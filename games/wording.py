"""Lists of names in a sentence, in the active language: "Ada, Bob and Cy"."""

from collections.abc import Iterable

from django.utils.translation import gettext


def and_list(names: Iterable) -> str:
    """Names in a sentence: "Ada", "Ada and Bob", "Ada, Bob and Cy" ("Ada, Bob und Cy")."""
    names = [str(name) for name in names]
    if len(names) < 2:
        return "".join(names)
    # Translators: the end of a list in a sentence, "Ada, Bob and Cy".
    return gettext("%(names)s and %(last)s") % {"names": ", ".join(names[:-1]), "last": names[-1]}
