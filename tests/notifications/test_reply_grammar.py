import pytest

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
