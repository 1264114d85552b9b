"""Whole games played on the board page as people play them, round after round, against
two greedy bots: by thumb at 390 px in German, by a player with only links; by mouse at
1280 px in English, by a signed-in player. Every move goes in through the board (the bar
under it), never the plain form; screenshots of each round's first move and of the end
land in test-artifacts/. On the way, at the start of round 2, the player opens the list of
every move on the board page (fetched through the seat link, never kept by the browser),
goes from it to the replay of the running game and steps it without a page load, seeing
their own cities and nobody else's; at the end they step through the finished game's
replay from the list, each step without a page load."""

import random

import pytest
from django.test import Client
from django.utils import translation
from django.utils.translation import gettext, pgettext

from games import rules
from games.bots import greedy_move
from games.links import seat_path
from games.models import Game
from games.services import SeatSpec, create_game, load_state, random_deal, start_game
from games.words.city_names import city_names
from tests.browser.axe import serious_violations
from tests.browser.board_moves import in_view, play_move
from tests.factories import UserFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

# The deals of a game of three greedy players that ends after two rounds, with 15 moves of
# seat 0, 9 of them two lines (found with games.bots.simulate: the fewest moves of 2,000
# seeds). The bots are greedy: the strong bot's moves took most of the server's time and
# what the page shows of a bot's move does not depend on how it was chosen.
SEED = 758
ROUNDS = 2


def new_game(language: str, user=None) -> Game:
    """Seat 0 for the player (``user``'s, or someone's with only its link), then two
    greedy bots.
    No seat has an address: nobody is emailed (the emails have tests of their own, and
    writing them took a third of this test's time)."""
    players = [
        SeatSpec(user.name if user else "Ada", user=user),
        SeatSpec("Gier", is_bot=True, bot_level="greedy"),
        SeatSpec("Geiz", is_bot=True, bot_level="greedy"),
    ]
    game = create_game("transamerica", None, players, created_by=user)
    Game.objects.filter(pk=game.pk).update(language=language)
    return start_game(game)


def play_whole_game(page, live_server, artifacts, game, *, name: str, touch: bool) -> Game:
    """Seat 0's every move on ``page``, until the game is over; the finished game."""
    seat = game.seats.get(position=0)
    board_page = live_server.url + seat_path(seat)
    page.goto(board_page)
    rounds = set()
    building = set()  # the rounds whose first move of track is on a screenshot
    for _ in range(60):
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            break
        state = load_state(game)
        # The bots move before the page that answers seat 0's move is drawn.
        assert state.seat_to_move == 0, "the page answered before the bots moved"
        if state.round not in rounds:
            rounds.add(state.round)
            if state.round > 1:  # the round just ended is shown above the live board
                assert page.locator("#round-summary[open]").count() == 1
                if state.round == 2:  # checked by axe with the rest of the page
                    see_every_move(page, artifacts, game, name=name, touch=touch)
                assert serious_violations(page) == []
            page.screenshot(path=str(artifacts / f"{name}-round-{state.round}.png"))
            if state.round == 2:
                step_a_running_replay(page, game, touch=touch)
                page.goto(board_page)
        move = greedy_move(state, 0)
        shot = None
        if isinstance(move, rules.Build) and state.round not in building:
            building.add(state.round)
            shot = artifacts / f"{name}-round-{state.round}-picked.png"
        play_move(page, state, 0, move, touch=touch, shot=shot)
        game.refresh_from_db()
        mine = [e for e in game.engine_events() if e.get("seat") == 0 and "type" in e]
        assert mine[-1]["type"] in (rules.START_PLACED, rules.TRACK_BUILT, rules.TURN_PASSED)
    else:
        pytest.fail("the game did not end within 60 of seat 0's moves")
    assert len(rounds) >= ROUNDS
    page.screenshot(path=str(artifacts / f"{name}-over.png"), full_page=True)
    return game


def press(locator, touch: bool) -> None:
    """A tap on a phone, a click with the mouse."""
    if touch:
        locator.tap()
    else:
        locator.click()


def open_move_list(page, touch: bool):
    """The board page's list of every move, opened: fetched through the seat link (the
    board page's own address), and never to be kept by the browser."""
    with page.expect_response(lambda response: "/moves/list/" in response.url) as answer:
        press(page.locator("#every-move > summary"), touch)
    response = answer.value
    assert response.url.startswith(page.url.split("?")[0])
    assert "no-store" in response.headers.get("cache-control", "")
    items = page.locator("#every-move ol.moves li")
    items.first.wait_for()
    return items


def see_every_move(page, artifacts, game, *, name: str, touch: bool) -> None:
    """Seat 0 opens the list of every move on the board page of a running game (left open:
    the page reloads with the next move)."""
    events = game.engine_events()
    items = open_move_list(page, touch)
    assert items.count() == len(events)
    links = page.locator("#every-move ol.moves a")
    assert links.last.get_attribute("href").endswith(f"history/?move={len(events)}")
    # The latest move in view, at the foot of the list.
    assert page.evaluate(
        """() => { const ol = document.querySelector("#every-move ol");
                   return ol.scrollTop + ol.clientHeight >= ol.scrollHeight - 1; }"""
    )
    page.locator("#every-move").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / f"{name}-every-move.png"))
    page.evaluate("window.scrollTo(0, 0)")


def shown_move(page) -> int:
    return int(page.locator("#event").get_attribute("data-seq"))


def step_to(page, action, seq: int) -> None:
    """Do ``action`` and wait for the replay to show move ``seq``."""
    action()
    page.wait_for_selector(f'#event[data-seq="{seq}"]')
    assert page.url.endswith(f"?move={seq}")
    current = page.locator(".move-list a[aria-current]")
    assert current.count() == 1 and current.get_attribute("href").endswith(f"?move={seq}")


def shows_own_hand_only(page, game) -> None:
    """The replay shows this round's cities of seat 0 and nobody else's: not in the
    players' table (where seat 0's are), not in the list of every move."""
    with translation.override(game.language):
        dealt = [e for e in game.engine_events() if e["type"] == rules.ROUND_STARTED][-1]
        own, *others = (", ".join(city_names(hand)) for hand in dealt["hands"])
        hidden = pgettext("another player's cities, not shown", "hidden")
    players = page.locator('[data-frame-part="players"] tbody tr').all_inner_texts()
    assert own in players[0]
    assert all(hidden in row for row in players[1:]), players
    seen = page.locator("main").inner_text()
    assert not [hand for hand in others if hand in seen]


def step_a_running_replay(page, game, *, touch: bool) -> None:
    """From the board page's open list (the seat's, fetched through its link) to the
    replay of the running game at its latest move; two steps back and one by the list
    to the latest again, none loading a page, each showing seat 0's view only."""
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    last = game.version
    with page.expect_navigation():
        press(page.locator(f'#every-move a[href$="?move={last}"]'), touch)
    assert shown_move(page) == last
    shows_own_hand_only(page, game)
    page.evaluate("window.stepMarker = 'still here'")  # a page load would forget this
    nav = '[data-frame-part="nav"]'
    for seq in (last - 1, last - 2):
        step_to(page, lambda: press(page.locator(f'{nav} a[rel="prev"]'), touch), seq)
    step_to(page, lambda: press(page.locator(f'.move-list a[href$="?move={last}"]'), touch), last)
    assert page.evaluate("window.stepMarker") == "still here"
    shows_own_hand_only(page, game)  # in the frame swapped in, too


def step_through_the_replay(page, artifacts, game, *, name: str, touch: bool) -> None:
    """From the board page's list to the replay at the last move of round 1; then steps by
    the replay's own links, keys and list, and Back and Forward, none loading a page."""
    events = game.engine_events()
    scored = next(e["seq"] for e in events if e["type"] == rules.ROUND_SCORED)
    open_move_list(page, touch)
    link = page.locator(f'#every-move a[href$="?move={scored - 1}"]')
    with page.expect_navigation():
        press(link, touch)
    assert shown_move(page) == scored - 1
    # A page load would forget this.
    page.evaluate("window.stepMarker = 'still here'")
    board_lines = page.locator('[data-frame-part="board"] svg.board > g.lines > *').count()
    assert board_lines > 0
    nav = '[data-frame-part="nav"]'
    step_to(page, lambda: press(page.locator(f'{nav} a[rel="next"]'), touch), scored)
    # The board and the players moved on with the words: round 1 scored.
    assert (
        page.locator('[data-frame-part="board"]').get_attribute("aria-label").endswith(str(scored))
    )
    if not touch:
        step_to(page, lambda: page.keyboard.press("ArrowLeft"), scored - 1)
        step_to(page, lambda: page.keyboard.press("End"), len(events))
    step_to(page, lambda: press(page.locator('.move-list a[href$="?move=2"]'), touch), 2)
    if touch:  # the list is under the board: the step brings the board back into view
        assert in_view(page, '[data-frame-part="nav"]')
    step_to(page, page.go_back, len(events) if not touch else scored)
    step_to(page, page.go_forward, 2)
    assert page.evaluate("window.stepMarker") == "still here"
    step_to(page, lambda: press(page.locator(f'{nav} a[rel="next"]'), touch), 3)
    # A step brings the board without its lines and crossing points: the page's stay.
    assert page.locator('[data-frame-part="board"] svg.board > g.lines > *').count() == board_lines
    assert page.locator("svg.board").count() == 1
    page.screenshot(path=str(artifacts / f"{name}-replay-step.png"))
    assert serious_violations(page) == []
    page.set_viewport_size({"width": 360, "height": 780})
    scroll, width = page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert scroll <= width, "the replay scrolls sideways at 360 px"
    assert page.evaluate("window.stepMarker") == "still here"


def test_a_whole_game_by_thumb_at_390_px_in_german(browser, live_server, artifacts, monkeypatch):
    monkeypatch.setattr(random_deal, "rng", random.Random(SEED))
    game = new_game("de")
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    page = context.new_page()
    game = play_whole_game(
        page, live_server, artifacts, game, name="whole-game-phone-de", touch=True
    )
    with translation.override("de"):
        assert gettext("The game is over.") in page.locator("#status").inner_text()
    scroll, width = page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert scroll <= width
    step_through_the_replay(page, artifacts, game, name="whole-game-phone-de", touch=True)
    context.close()


def test_a_whole_game_by_mouse_at_1280_px_in_english(browser, live_server, artifacts, monkeypatch):
    monkeypatch.setattr(random_deal, "rng", random.Random(SEED))
    user = UserFactory(name="Grace", email="grace@example.com", language="en")
    game = new_game("en", user)
    client = Client()
    client.force_login(user)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    page = context.new_page()
    game = play_whole_game(
        page, live_server, artifacts, game, name="whole-game-desktop-en", touch=False
    )
    assert "The game is over." in page.locator("#status").inner_text()
    step_through_the_replay(page, artifacts, game, name="whole-game-desktop-en", touch=False)
    context.close()
