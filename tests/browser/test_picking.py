"""Picking on the board: exactly the second lines the engine allows after the first, and a
refusal said beside the button that was pressed, in view."""

import pytest
from django.utils import translation
from django.utils.translation import gettext

from games import rules
from games.links import seat_path
from games.services import load_state
from tests.browser.board_moves import click_line, in_view, play_move, tap_point
from tests.factories import simulated_game

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}
# Seed 2's bot game, 15 events in: seat 1 may build line 269 after line 365 only because
# 365 joins its network to track that reaches 269 (tests/games/test_board_page.py).
SEED, UNTIL, SEAT, FIRST, SECOND = 2, 15, 1, 365, 269


def available(page) -> set[int]:
    return {
        int(n)
        for n in page.locator("#board-frame line.pick.available").evaluate_all(
            "nodes => nodes.map(n => n.dataset.line)"
        )
    }


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_second_line_joined_through_the_first(browser, live_server, artifacts, size):
    game = simulated_game(seed=SEED, until=UNTIL)
    state = load_state(game)
    seat = game.seats.get(position=SEAT)
    phone = size == "phone"
    context = browser.new_context(viewport=SIZES[size], is_mobile=phone, has_touch=phone)
    page = context.new_page()
    page.goto(live_server.url + seat_path(seat))
    if not phone:
        click_line(page, FIRST)
        assert available(page) == set(rules.legal_second_line_ids(state, SEAT, FIRST))
        click_line(page, FIRST)  # and off again
        assert available(page) == set(rules.legal_line_ids(state, SEAT))
    move = rules.Build((state.board.line_points(FIRST), state.board.line_points(SECOND)))
    play_move(page, state, SEAT, move, touch=phone)
    page.screenshot(path=str(artifacts / f"second-line-through-the-first-{size}.png"))
    game.refresh_from_db()
    built = game.engine_events()[-1]
    assert built["type"] == rules.TRACK_BUILT and built["seat"] == SEAT
    assert [state.board.line_id(rules.as_line(line)) for line in built["lines"]] == [FIRST, SECOND]
    context.close()


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_refusal_is_shown_beside_the_button_in_view(browser, live_server, artifacts, size):
    game = simulated_game(seed=SEED, until=UNTIL)
    seat = game.seats.get(position=SEAT)
    phone = size == "phone"
    context = browser.new_context(viewport=SIZES[size], is_mobile=phone, has_touch=phone)
    page = context.new_page()
    page.goto(live_server.url + seat_path(seat))
    # Nothing picked: the bar's Build says why, beside it, and nothing is sent.
    page.locator("#pick-confirm").click()
    assert page.locator("#pick-refusal").text_content() == gettext(
        "Pick one or two lines to build."
    )
    assert in_view(page, "#pick-refusal") and in_view(page, "#pick-confirm")
    page.screenshot(path=str(artifacts / f"refusal-in-the-bar-{size}.png"))
    # The form's own button, far down: its refusal beside it.
    page.locator("#confirm-move").click()
    assert in_view(page, "#form-refusal")
    game.refresh_from_db()
    assert game.version == UNTIL  # nothing was sent
    context.close()

    # Without JavaScript the server refuses it: the page that answers opens with why.
    context = browser.new_context(viewport=SIZES[size], java_script_enabled=False)
    page = context.new_page()
    page.goto(live_server.url + seat_path(seat))
    with page.expect_navigation():
        page.locator("#confirm-move").click()
    with translation.override("en"):
        assert gettext("Pick one or two lines to build.") in page.locator("#refusal").inner_text()
    assert in_view(page, "#refusal")
    page.screenshot(path=str(artifacts / f"refusal-without-javascript-{size}.png"))
    context.close()


def test_on_a_phone_only_the_lines_from_the_tapped_point_are_marked(
    browser, live_server, artifacts
):
    game = simulated_game(seed=SEED, until=UNTIL)
    state = load_state(game)
    context = browser.new_context(viewport=SIZES["phone"], is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(live_server.url + seat_path(game.seats.get(position=SEAT)))
    marked = "#board-frame line.mark.available"
    assert page.locator(marked).count() == 0  # nothing glows over the board at first
    point = state.board.lines[FIRST][0]
    if point not in rules.network(state, SEAT):
        point = state.board.lines[FIRST][1]
    tap_point(page, point)
    ends = page.locator(marked).evaluate_all(
        "nodes => nodes.map(n => JSON.parse(document.getElementById('pick-data').textContent)"
        ".lines[n.dataset.mark].slice(0, 2))"
    )
    legal_here = [
        line for line in rules.legal_line_ids(state, SEAT) if point in state.board.lines[line][:2]
    ]
    assert len(ends) == len(legal_here) == page.locator("#direction-buttons button").count()
    assert all(point in pair for pair in ends)
    # The key says whose track is whose, by name and number as well as colour.
    key = page.locator(".track-key").inner_text()
    assert all(seat.name in key for seat in game.seats.all())
    page.screenshot(path=str(artifacts / "marked-from-the-tapped-point-phone.png"))
    context.close()
