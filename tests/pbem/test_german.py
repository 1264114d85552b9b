"""German as the rulebook says it (issue 34): the words of the TransEuropa rulebook, one
rule for capitals after a colon, and point names a German player reads aloud."""

import re
from pathlib import Path

import polib
import pytest
from django.utils import translation

from games import rules
from games.words import places

GERMAN = Path(__file__).resolve().parents[2] / "pbem" / "locale" / "de" / "LC_MESSAGES"


def german_strings() -> list[str]:
    catalogue = polib.pofile(str(GERMAN / "django.po"))
    found = []
    for entry in catalogue:
        found.append(entry.msgstr)
        found.extend(entry.msgstr_plural.values())
    return [text for text in found if text]


@pytest.mark.parametrize(
    "word, why",
    [
        (r"\bbebau", "the rulebook lays tracks (Schienen legen) on lines"),
        (r"\bTipp\b", "'Tipp' reads as a hint"),
        (r"\bStartmarker|\bStartstück", "the rulebook's word is Startstein"),
        (r"\b(erste[rn]?|beginnende[rn]?) Spieler\b", "the rulebook's word is Startspieler"),
    ],
)
def test_the_german_catalogue_uses_the_rulebooks_words(word, why):
    wrong = [text for text in german_strings() if re.search(word, text)]
    assert wrong == [], why


def test_a_whole_sentence_after_a_colon_starts_with_a_capital():
    # After a colon, a lower-case pronoun, or an article, a noun and a verb, start a
    # sentence: "...: du hast gewonnen", "...: der Bot spielt ...".
    sentence = re.compile(
        r": (?:(?:du|er|es|wir|ihr) \w+|(?:der|die|das|ein|eine|deine|unsere) \w+ "
        r"(?:ist|sind|war|spielt|öffnet|wurden?)\b)"
    )
    wrong = [text for text in german_strings() if sentence.search(text)]
    assert wrong == []


def test_german_point_names_count_steps_and_the_old_names_still_read():
    board = rules.get_board("transeuropa")
    with translation.override("de"):
        names = places.point_names(board)
    steps = [(index, name) for index, name in enumerate(names) if index not in board.city_at]
    assert all(" Schritt" in name for _index, name in steps)
    assert any(" Schritte " in name for _index, name in steps)  # the plural for 2 or more
    for index, name in steps:
        old = name.replace(" Schritte", "").replace(" Schritt", "")
        assert places.point_named(board, old) == index
