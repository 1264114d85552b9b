"""Names and titles that go into email headers (issue 13)."""

import pytest
from django.core.exceptions import ValidationError

from helpers.text import one_line, refuse_control_characters


@pytest.mark.parametrize(
    "text", ["a\nb", "a\rb", "tab\there", "nul\x00", "esc\x1b[31m", "line\u2028sep", "c1\x85"]
)
def test_control_characters_are_refused(text):
    with pytest.raises(ValidationError):
        refuse_control_characters(text)


@pytest.mark.parametrize(
    "text", ["Ada Lovelace", "Zoë & Łukasz", "🚂 Friday game", "O'Brien-Smith"]
)
def test_ordinary_text_passes(text):
    refuse_control_characters(text)
    assert one_line(text) == text


def test_one_line_turns_every_control_character_into_one_space():
    assert one_line("Friday\r\nBcc: x@example.org") == "Friday Bcc: x@example.org"
    assert one_line("a\u2029\tb\x00") == "a b"
