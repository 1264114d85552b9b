import math
import re
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders

from games import rules
from games.pages.drawing import SCALE, board_svg, last_turn, render_svg, xy
from games.services import load_state
from games.words.places import line_label
from tests.conftest import play_turn
from tests.factories import GameFactory

pytestmark = pytest.mark.django_db


def test_points_are_drawn_on_the_triangular_grid():
    assert xy((0, 0)) == (0, 0)
    assert xy((1, 0)) == (SCALE, 0)
    x, y = xy((1, 2))
    assert (x, round(y, 6)) == (0, round(2 * SCALE * math.sqrt(3) / 2, 6))


def test_every_line_city_and_double_line_is_drawn():
    game = GameFactory()
    state = load_state(game)
    svg = board_svg(state, 0)
    board = state.board
    assert len(svg["lines"]) == len(board.lines)
    assert sum(line["cost"] == 2 for line in svg["lines"]) == sum(c == 2 for *_, c in board.lines)
    assert {c["name"] for c in svg["cities"]} == {c.name for c in board.cities}
    assert all(
        0 < line["x1"] < svg["width"] and 0 < line["y1"] < svg["height"] for line in svg["lines"]
    )


def test_only_the_viewers_cities_are_marked():
    state = load_state(GameFactory())
    for viewer in range(3):
        marked = {c["name"] for c in board_svg(state, viewer)["cities"] if c["mine"]}
        assert marked == set(state.hands[viewer])
    assert not any(c["mine"] for c in board_svg(state, None)["cities"])


def test_track_shows_who_built_it_and_the_last_turn_is_marked():
    game = GameFactory()
    for _ in range(4):
        game = play_turn(game)
    events = game.engine_events()
    state = rules.replay(events)
    highlight = last_turn(state, events)
    builder = events[-1]["seat"]
    assert events[-1]["type"] == "track_built"
    svg = board_svg(state, 0, highlight=highlight, seat_names=["Ann", "Bob", "Cy"])
    last = [t for t in svg["tracks"] if t["last"]]
    assert last and all(t["seat"] == builder for t in last)
    assert {t["id"] for t in last} == highlight.lines
    assert last[0]["title"] == f"Built by {['Ann', 'Bob', 'Cy'][builder]}"
    assert len(svg["starts"]) == 3


def test_a_start_marker_is_the_last_turn_while_placing():
    game = play_turn(GameFactory())
    events = game.engine_events()
    state = rules.replay(events)
    highlight = last_turn(state, events)
    assert highlight.start == state.starts[events[-1]["seat"]]
    assert not highlight.lines


def test_line_labels_name_direction_and_kind():
    board = rules.get_board("transamerica")
    double = next(i for i, (_a, _b, cost) in enumerate(board.lines) if cost == 2)
    assert "double line, costs 2" in line_label(board, double)
    single = board.line_id(((0, 0), (0, 1)))
    assert " to " in line_label(board, single)
    assert "costs 1" in line_label(board, single)


def test_a_new_start_marker_is_ringed_in_black_and_white_under_the_city_names():
    """Black and white show on every city's colour and on the paper: the ring marks a
    new start marker wherever it stands."""
    game = play_turn(GameFactory())
    events = game.engine_events()
    state = rules.replay(events)
    markup = str(render_svg(board_svg(state, 0, highlight=last_turn(state, events))))
    x, y = board_svg(state, 0)["starts"][0]["x"], board_svg(state, 0)["starts"][0]["y"]
    assert f'<circle class="start-ring" cx="{x}" cy="{y}"' in markup
    assert f'<circle class="start-ring inner" cx="{x}" cy="{y}"' in markup
    assert markup.index('class="start-rings"') < markup.index('class="cities"')
    css = Path(finders.find("games/board.css")).read_text()
    outer = re.search(r"\.board \.start-ring \{([^}]*)\}", css)[1]
    inner = re.search(r"\.board \.start-ring\.inner \{([^}]*)\}", css)[1]
    assert "stroke: #1d232b" in outer and "stroke: #fff" in inner
    # An older marker is not ringed.
    assert '<circle class="start-ring' not in str(render_svg(board_svg(state, 0)))
