"""Whole games played on the board page as people play them, round after round, against a
strong and a greedy bot: by thumb at 390 px in German, by a player with only links; by
mouse at 1280 px in English, by a signed-in player. Every move goes in through the board
(the bar under it), never the plain form; screenshots of each round's first move and of
the end land in test-artifacts/."""

import random

import pytest
from django.test import Client
from django.utils import translation
from django.utils.translation import gettext

from games import rules
from games.bots import greedy_move
from games.links import seat_path
from games.models import Game
from games.services import SeatSpec, create_game, load_state, random_deal, start_game
from tests.browser.axe import serious_violations
from tests.browser.board_moves import play_move
from tests.factories import UserFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

# The deals of a game that ends after two rounds when seat 0 plays greedy moves against a
# strong and a greedy bot: 17 moves of seat 0 (found with games.bots.simulate).
SEED = 50
ROUNDS = 2


def new_game(language: str, user=None) -> Game:
    """Seat 0 for the player (``user``'s, or someone's with only its link), then a strong
    and a greedy bot.
    No seat has an address: nobody is emailed (the emails have tests of their own, and
    writing them took a third of this test's time)."""
    players = [
        SeatSpec(user.name if user else "Ada", user=user),
        SeatSpec("Stark", is_bot=True, bot_level="strong"),
        SeatSpec("Gier", is_bot=True, bot_level="greedy"),
    ]
    game = create_game("transamerica", None, players, created_by=user)
    Game.objects.filter(pk=game.pk).update(language=language)
    return start_game(game)


def play_whole_game(page, live_server, artifacts, game, *, name: str, touch: bool) -> Game:
    """Seat 0's every move on ``page``, until the game is over; the finished game."""
    seat = game.seats.get(position=0)
    page.goto(live_server.url + seat_path(seat))
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
                assert serious_violations(page) == []
            page.screenshot(path=str(artifacts / f"{name}-round-{state.round}.png"))
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
    context.close()
