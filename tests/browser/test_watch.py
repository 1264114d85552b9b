"""An open board page in a real browser: it says by a POST that the player saw the
position, and shows a new move without a reload by hand."""

import pytest

from games.links import seat_path
from games.services import load_state
from tests.conftest import play_turn
from tests.factories import GameFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_a_visible_board_says_it_was_seen_and_follows_the_game(chromium, live_server, settings):
    settings.RAILMAIL_BOARD_POLL_SECONDS = 1
    game = GameFactory()
    state = load_state(game)
    waiting = game.seats.get(position=(state.seat_to_move + 1) % 3)
    context = chromium.new_context(timezone_id="Asia/Tokyo")
    page = context.new_page()
    page.goto(live_server.url + seat_path(waiting))
    page.wait_for_load_state("networkidle")
    waiting.refresh_from_db()
    assert waiting.seen_version == game.version
    assert waiting.browser_time_zone == "Asia/Tokyo"
    game = play_turn(game)  # the player before them moves, elsewhere
    with page.expect_navigation(timeout=10_000):
        pass  # the page reloads itself within a poll or two
    page.wait_for_load_state("networkidle")
    waiting.refresh_from_db()
    assert waiting.seen_version == game.version
    context.close()
