"""The move form's lists are written by a widget of its own (games.forms.LongSelect): they
must say what Django's own select says."""

from html.parser import HTMLParser

import pytest
from django import forms

from games.forms import LongSelect

CHOICES = [("", "Choose a line"), (1, "Wien to Praha"), (2, "A & B <double>"), (30, "Roma")]


class Markup(HTMLParser):
    """Tags with their attributes (in any order), and the text between them."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.parts: list = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.parts.append((tag, sorted(attrs)))

    def handle_endtag(self, tag):
        self.parts.append(("/" + tag,))

    def handle_data(self, data):
        if data.strip():
            self.parts.append(data)


@pytest.mark.parametrize("value", ["", 2, "30", None])
@pytest.mark.parametrize("required", [True, False])
def test_a_long_select_says_what_djangos_select_says(value, required):
    attrs = {"id": "id_line1", "aria-describedby": "hint", "required": required}
    django_select = forms.Select(choices=CHOICES).render("line1", value, attrs=attrs)
    ours = LongSelect(choices=CHOICES).render("line1", value, attrs=attrs)
    assert Markup(ours).parts == Markup(django_select).parts
    assert "A &amp; B &lt;double&gt;" in ours
    assert ours.count(" selected") == 1  # the empty choice when nothing is chosen
