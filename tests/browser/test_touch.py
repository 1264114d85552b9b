"""A whole turn on a phone by thumb: the board starts close up on the player's network,
crossing points at least 44 px apart; a tap on a point offers its lines as 44 px
direction buttons; the move goes in with the same form as without JavaScript."""

import json

import pytest
from django.utils import translation
from django.utils.translation import gettext

from games.links import seat_path
from games.services import load_state
from games.words import places
from tests.conftest import play_turn
from tests.factories import GameFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


def tap_point(page, point: int) -> None:
    """Scroll the board's frame to ``point`` and tap it where it is drawn."""
    x, y = page.evaluate(
        """(point) => {
          const data = JSON.parse(document.getElementById("pick-data").textContent);
          const svg = document.querySelector("svg.board");
          const frame = document.getElementById("board-frame");
          const [px, py] = data.positions[point];
          const s = svg.getScreenCTM().a;
          frame.scrollLeft = px * s - frame.clientWidth / 2;
          frame.scrollTop = py * s - frame.clientHeight / 2;
          const at = new DOMPoint(px, py).matrixTransform(svg.getScreenCTM());
          return [at.x, at.y];
        }""",
        point,
    )
    page.touchscreen.tap(x, y)


@pytest.mark.parametrize("language", ["en", "de"])
def test_a_turn_built_with_thumb_taps(browser, live_server, artifacts, language):
    game = GameFactory(language=language)
    for _ in range(3):  # every start marker placed
        game = play_turn(game)
    seat = game.seats.get(position=load_state(game).seat_to_move)
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(live_server.url + seat_path(seat))
    data = json.loads(page.locator("#pick-data").text_content())
    assert "zoom-3" in page.locator("#board-frame").get_attribute("class")
    apart = page.evaluate("document.querySelector('svg.board').getScreenCTM().a * 40")
    assert apart >= 44, f"neighbouring points {apart:.0f} px apart"
    labels = page.evaluate(
        "Math.min(...Array.from(document.querySelectorAll('.city text'))"
        ".map(t => t.getBoundingClientRect().height))"
    )
    assert labels >= 11, f"city labels {labels:.1f} px high"
    page.screenshot(path=str(artifacts / f"board-touch-start-phone-{language}.png"))

    line = str(data["first"][0])
    a, b, _cost = data["lines"][line]
    start = a if a in data["network"] else b
    tap_point(page, start)
    buttons = page.locator("#direction-buttons button")
    assert buttons.count() >= 1
    with translation.override(language):  # the script's words, in the player's language
        said = gettext("From %(point)s, build towards:") % {"point": data["names"][start]}
        directions = set(places.direction_names().values())
        directions |= {
            gettext("%(direction)s (double line)") % {"direction": d} for d in directions
        }
    assert page.locator("#directions-from").text_content() == said
    assert {buttons.nth(n).text_content() for n in range(buttons.count())} <= directions
    for n in range(buttons.count()):
        box = buttons.nth(n).bounding_box()
        assert box["width"] >= 44 and box["height"] >= 44
    other = b if start == a else a
    wanted = [
        n
        for n in range(buttons.count())
        if buttons.nth(n).get_attribute("title").endswith(data["names"][other])
    ]
    page.screenshot(path=str(artifacts / f"board-touch-directions-phone-{language}.png"))
    buttons.nth(wanted[0]).tap()
    assert page.locator("select[name=line1]").input_value() == line
    page.screenshot(path=str(artifacts / f"board-touch-line-picked-phone-{language}.png"))
    with page.expect_navigation():
        page.locator("#confirm-move").tap()
    with translation.override(language):
        assert gettext("Your move is in. We will email you when it is your turn again.") in (
            page.content()
        )
    game.refresh_from_db()
    assert game.engine_events()[-1]["seat"] == seat.position
    page.screenshot(path=str(artifacts / f"board-touch-waiting-phone-{language}.png"))
    context.close()


DESKTOP = {"width": 1280, "height": 900}


def building_game():
    game = GameFactory()
    for _ in range(3):  # every start marker placed: the network is the start marker
        game = play_turn(game)
    return game, game.seats.get(position=load_state(game).seat_to_move)


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_turn_by_keyboard_with_the_board_as_one_tab_stop(browser, live_server, artifacts, size):
    game, seat = building_game()
    context = browser.new_context(viewport=DESKTOP if size == "desktop" else PHONE)
    page = context.new_page()
    page.goto(live_server.url + seat_path(seat))
    presses = 0
    while page.evaluate("document.activeElement?.tagName") != "svg":
        page.keyboard.press("Tab")
        presses += 1
        assert presses < 20, "the board is not reached within 20 Tab presses"
    assert page.locator("svg.board [tabindex='0']").count() == 0  # one stop, not one a line
    # On a desktop, every line to pick is at least 24 px wide.
    widest = page.evaluate(
        """() => {
          const svg = document.querySelector("svg.board");
          const pick = svg.querySelector(".pick");
          return parseFloat(getComputedStyle(pick).strokeWidth) * svg.getScreenCTM().a;
        }"""
    )
    # (On a phone a tap picks a point, then a direction button: test_a_turn_built_with_thumb_taps.)
    assert size == "phone" or widest >= 24, f"line targets {widest:.1f} px wide"
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")  # the cursor moves and comes back to the start marker
    page.keyboard.press("Enter")
    assert page.locator("#direction-buttons button").count() >= 1
    page.keyboard.press("Enter")  # the first direction, focused
    chosen = page.locator("select[name=line1]").input_value()
    assert chosen
    page.screenshot(path=str(artifacts / f"board-keyboard-line-picked-{size}.png"))
    with page.expect_navigation():
        page.locator("#confirm-move").focus()
        page.keyboard.press("Enter")
    assert "Your move is in" in page.content()
    context.close()


def test_a_turn_without_javascript(browser, live_server, artifacts):
    game, seat = building_game()
    context = browser.new_context(viewport=PHONE, java_script_enabled=False)
    page = context.new_page()
    page.goto(live_server.url + seat_path(seat))
    line1 = page.locator("select[name=line1]")
    values = [v for v in line1.locator("option").evaluate_all("o => o.map(x => x.value)") if v]
    state = load_state(game)
    single = next(v for v in values if state.board.lines[int(v)][2] == 1)
    line1.select_option(single)
    page.get_by_role("button", name="Choose a second line").click()
    assert "Cost so far: 1 of 2" in page.locator(".cost").inner_text()
    offered = [
        v
        for v in page.locator("select[name=line2] option").evaluate_all("o => o.map(x => x.value)")
        if v
    ]
    from games import rules as engine

    assert {int(v) for v in offered} == set(
        engine.legal_second_line_ids(state, seat.position, int(single))
    )
    page.locator("select[name=line2]").select_option(offered[0])
    page.screenshot(path=str(artifacts / "board-nojs-second-line-phone.png"), full_page=True)
    page.locator("#confirm-move").click()
    assert "Your move is in" in page.content()
    context.close()
