"""The move form's lists are written by a widget of its own (games.forms.LongSelect): they
must say what Django's own select says."""

import random
from html.parser import HTMLParser

import pytest
from django import forms

from games import bots, rules
from games import forms as move_forms
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


def test_a_moves_form_checks_its_numbers_without_labelling_every_option(monkeypatch):
    events = bots.simulate("transamerica", 3, random.Random(4))
    state = rules.replay(events[:12])
    assert state.phase != rules.PLACING and state.seat_to_move is not None
    seat = state.seat_to_move
    allowed = rules.legal_line_ids(state, seat)
    refused = next(i for i in range(len(state.board.lines)) if i not in allowed)
    labelled = []
    monkeypatch.setattr(move_forms, "line_label", lambda board, i: labelled.append(i) or str(i))

    def posted(**data):
        return move_forms.MoveForm({"version": 12, **data}, state=state, seat=seat)

    assert posted(line1=allowed[0]).is_valid()
    assert not posted(line1=refused).is_valid()
    assert "line1" in posted(line1="no number").errors
    # A second line the form takes is a single line not yet built; whether it may follow
    # the first is the engine's to judge (the move's view shows its reason).
    board = state.board
    built = next(iter(state.built))
    double = next(i for i, (_a, _b, cost) in enumerate(board.lines) if cost == 2)
    for line in (built, double, len(board.lines), -1):
        assert "line2" in posted(line1=allowed[0], line2=line).errors
    network = rules.network(state, seat)
    far = next(
        i
        for i, (a, b, cost) in enumerate(board.lines)
        if cost == 1 and i not in state.built and not {a, b} & network
    )
    form = posted(line1=allowed[0], line2=far)
    assert form.is_valid()
    with pytest.raises(rules.IllegalMove, match="does not touch your network"):
        rules.play(state, seat, form.cleaned_data["move"])
    assert labelled == []  # no option was labelled for a POST
    shown = posted()
    str(shown["line1"])
    assert sorted(labelled) == sorted(allowed)


def test_a_new_game_claiming_thousands_of_players_builds_six_forms_and_says_why():
    data = {"players-TOTAL_FORMS": "99999", "players-INITIAL_FORMS": "0"}
    data.update({f"players-{i}-name": f"P{i}" for i in range(8)})
    players = move_forms.PlayerFormSet(data, prefix="players")
    assert not players.is_valid()
    assert len(players.forms) == 6
    assert players.non_form_errors()
