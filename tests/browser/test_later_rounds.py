"""The first move of rounds 2 and 3, by thumb at 390 px and by mouse at 1280 px, in German
and English, from positions loaded with ``import_record``: the page then shows the
round just ended above the board, and the board's script must work the live board."""

import random

import pytest

from games import rules
from games.bots import greedy_move, simulate
from games.links import seat_path
from games.models import Game
from games.services import load_state
from games.services.record_import import import_record
from tests.browser.board_moves import pick_data, play_move

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}
NAMES = ["Ada", "Björn", "Chloé"]


def game_in_round(number: int, language: str) -> Game:
    """A game made by ``import_record`` from a bot game's record that stops where round
    ``number`` - 1 is scored: the server deals round ``number`` as it would after a move."""
    events = simulate("transamerica", len(NAMES), random.Random(0))
    scored = [n for n, event in enumerate(events) if event["type"] == rules.ROUND_SCORED]
    record = rules.make_record(events[: scored[number - 2] + 1], NAMES)
    # Seats without addresses: nobody is emailed (rendering the emails' board pictures
    # would take most of the test's time), and seat links open the seats all the same.
    game = import_record(record)
    Game.objects.filter(pk=game.pk).update(language=language)
    game.refresh_from_db()
    assert game.round == number and game.status == Game.Status.ACTIVE
    return game


def view_offset(page) -> list[float]:
    """How far the phone's frame is scrolled from showing ``pick-data``'s centre (the
    player's own cities, or network) in its middle, as far as the frame can scroll."""
    return page.evaluate(
        """() => {
          const data = JSON.parse(document.getElementById("pick-data").textContent);
          const frame = document.getElementById("board-frame");
          const s = frame.querySelector("svg.board").getScreenCTM().a;
          const want = (c, size, whole) => Math.max(0, Math.min(whole - size, c * s - size / 2));
          return [
            frame.scrollLeft - want(data.centre[0], frame.clientWidth, frame.scrollWidth),
            frame.scrollTop - want(data.centre[1], frame.clientHeight, frame.scrollHeight),
          ];
        }"""
    )


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_first_move_of_rounds_2_and_3(browser, live_server, artifacts, size):
    """In German and in English, in one context a size (each new context costs the browser
    more than a page)."""
    phone = size == "phone"
    context = browser.new_context(viewport=SIZES[size], is_mobile=phone, has_touch=phone)
    page = context.new_page()
    for language in ("de", "en"):
        for number in (2, 3):
            first_move_of_round(page, live_server, artifacts, number, size, language)
    context.close()


def first_move_of_round(
    page, live_server, artifacts, number: int, size: str, language: str
) -> None:
    """Round ``number``'s first move on ``page``, from a game loaded with ``import_record``."""
    phone = size == "phone"
    game = game_in_round(number, language)
    state = load_state(game)
    seat = game.seats.get(position=state.seat_to_move)
    page.goto(live_server.url + seat_path(seat))
    assert page.locator("html").get_attribute("lang") == language
    # The round just ended is shown above the board, with its own drawing.
    assert page.locator("#round-summary[open] svg.board").count() == 1
    if phone:
        # Zoomed on the player's cities, measured on the live board.
        assert "zoom-3" in page.locator("#board-frame").get_attribute("class")
        assert all(abs(off) < 2 for off in view_offset(page)), view_offset(page)
    assert pick_data(page)["placing"]
    # The keyboard's hint is for keyboards: not shown until the board has their focus.
    assert not page.locator("#board-keys").is_visible()
    page.screenshot(path=str(artifacts / f"round-{number}-first-move-{size}-{language}.png"))
    move = greedy_move(state, seat.position)
    play_move(page, state, seat.position, move, touch=phone)
    page.screenshot(path=str(artifacts / f"round-{number}-first-move-done-{size}-{language}.png"))
    game.refresh_from_db()
    placed = [e for e in game.engine_events() if e["type"] == rules.START_PLACED]
    assert placed[-1]["seat"] == seat.position
    assert tuple(placed[-1]["point"]) == move.point
