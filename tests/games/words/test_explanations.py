"""The engine's refusals, worded for the player in their language (games.words.explanations)."""

import ast
from pathlib import Path

import pytest
from django.utils import translation

from games import rules
from games.services import load_state
from games.words import explanations, places
from tests.factories import simulated_game

RULES = Path(rules.__file__).parent


def refusal_codes(module: str) -> set[str]:
    """The codes ``IllegalMove`` is raised with in an engine module."""
    tree = ast.parse((RULES / module).read_text())
    return {
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", "") == "IllegalMove"
        and isinstance(node.args[0], ast.Constant)
    }


def test_every_refusal_of_a_move_has_its_own_words():
    assert refusal_codes("turns.py") <= set(explanations.EXPLANATIONS)


def built_line(state) -> tuple:
    line_id = next(iter(state.built))
    return line_id, state.board.line_points(line_id)


@pytest.mark.django_db
def test_a_taken_line_is_named_as_the_board_names_it_in_each_language():
    state = load_state(simulated_game())
    line_id, line = built_line(state)
    refusal = rules.IllegalMove("line_taken", "the line ... is already built", line=line)
    english = explanations.explain(state.board, refusal)
    assert english == f"The line {places.line_name(state.board, line_id)} is already built."
    with translation.override("de"):
        german = explanations.explain(state.board, refusal)
        name = places.line_name(state.board, line_id)
    assert german == f"Auf der Linie {name} liegt schon eine Schiene."


def test_a_seat_is_named_and_an_unknown_code_keeps_the_engines_words():
    board = rules.get_board("transamerica")
    turn = rules.IllegalMove("not_your_turn", "it is not your turn: seat 1 moves", seat=1)
    said = explanations.explain(board, turn, ["Ada", "Bob"])
    assert said == "It is not your turn: Bob moves now."
    odd = rules.IllegalMove("bad_deal", "seat 0's hand must hold 5 cities")
    assert explanations.explain(board, odd) == "seat 0's hand must hold 5 cities"
