import pytest
from django.conf import settings
from django.utils import translation

from notifications import reply_grammar
from notifications.reply_grammar import Named, Pick, read


@pytest.mark.parametrize(
    "text, wanted",
    [
        ("1", Pick(1)),
        ("  2.\nthanks", Pick(2)),
        ("3)", Pick(3)),
        ("7", Pick(7)),  # answered: there is no suggestion 7
        ("move: Denver to 1 east of Denver", Named(("Denver to 1 east of Denver",))),
        ("MOVE:  a to b ; c to d", Named(("a to b", "c to d"))),
        ("Move: Denver", Named(("Denver",))),
        ("move:", Named(())),  # answered: name the lines
        ("\n\nNice move, Bea!", None),
        ("I move: later", None),
        ("", None),
    ],
)
def test_the_first_line_says_whether_a_reply_is_a_move(text, wanted):
    assert read(text) == wanted


def test_every_languages_move_word_starts_a_move():
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            word = reply_grammar.move_word()
        assert word in reply_grammar.MOVE_WORDS
        assert reply_grammar.read(f"{word.upper()}: Denver to 1 east of Denver") == (
            reply_grammar.Named(("Denver to 1 east of Denver",))
        )


def test_coloured_track_is_read_in_every_language():
    assert reply_grammar.is_coloured("Denver to 1 east of Denver (coloured)")
    assert reply_grammar.is_coloured("Denver bis 1 östlich von Denver (Farbschiene)")
    assert not reply_grammar.is_coloured("Denver to 1 east of Denver")
