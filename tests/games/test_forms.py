"""The move form's lists are written by a template of their own (games.forms.LongSelect):
they must say what Django's own select says."""

import re

import pytest
from django import forms

from games.forms import LongSelect

CHOICES = [("", "Choose a line"), (1, "Wien to Praha"), (2, "A & B <double>"), (30, "Roma")]


def markup(html: str) -> str:
    return re.sub(r">\s+<", "><", html.strip())


@pytest.mark.parametrize("value", ["", 2, "30"])
def test_a_long_select_is_djangos_select_but_for_whitespace(value):
    attrs = {"id": "id_line1", "aria-describedby": "hint"}
    django_select = forms.Select(choices=CHOICES).render("line1", value, attrs=attrs)
    ours = LongSelect(choices=CHOICES).render("line1", value, attrs=attrs)
    assert markup(ours) == markup(django_select)
    assert "A &amp; B &lt;double&gt;" in ours
    assert ours.count(" selected") == 1
