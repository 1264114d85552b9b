"""A whole game in a real browser: create, invite, join, place, build, score, replay."""

import re

import pytest
from django.test import Client
from django.urls import NoReverseMatch, reverse

from games import rules, services
from games.bots import greedy_move
from games.links import seat_path
from games.models import Game
from notifications.models import Message
from tests.conftest import play_turn
from tests.factories import UserFactory, simulated_game

# A real browser is a real component: it runs once, in the PostgreSQL pass.
pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def signed_in_context(browser, live_server, user):
    client = Client()
    client.force_login(user)
    context = browser.new_context(viewport=DESKTOP)
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    return context


def seat_page(context, live_server, seat):
    page = context.new_page()
    page.goto(live_server.url + seat_path(seat))
    return page


def click_on(page, selector):
    """A real mouse click at the middle of an SVG shape (a flat line has no height, which
    Playwright's own click refuses as invisible)."""
    node = page.locator(selector)
    node.scroll_into_view_if_needed()
    box = node.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def place_start_by_clicking(page, point):
    click_on(page, f'circle[data-point="{point}"]')
    assert page.locator("select[name=point]").input_value() == str(point)
    page.locator("#confirm-move").click()
    page.wait_for_load_state()


def build_by_clicking(page, line_ids):
    for line_id in line_ids:
        click_on(page, f'line.pick[data-line="{line_id}"]')
    picked = [page.locator(f"select[name=line{n}]").input_value() for n in (1, 2)]
    assert picked[: len(line_ids)] == [str(i) for i in line_ids]
    page.locator("#confirm-move").click()
    page.wait_for_load_state()


def test_a_game_from_invitation_to_replay(browser, live_server, artifacts):
    creator = UserFactory(name="Grace", email="grace@example.com")
    grace = signed_in_context(browser, live_server, creator)
    page = grace.new_page()

    # Create the game through the form.
    page.goto(live_server.url + reverse("games:new"))
    page.fill("input[name=title]", "Browser game")
    page.fill("input[name=players-0-name]", "Ada")
    page.fill("input[name=players-0-email]", "ada@example.com")
    page.get_by_role("button", name=re.compile("Create the game")).click()
    page.wait_for_load_state()
    game = Game.objects.get(title="Browser game")
    assert game.status == Game.Status.SETUP

    # Ada opens the emailed link and joins.
    invitation = Message.objects.get(kind="invitation", to="ada@example.com")
    link = re.search(r"https?://\S+/s/\S+/", invitation.body_text).group(0)
    ada = browser.new_context(viewport=DESKTOP)
    ada_page = ada.new_page()
    ada_page.goto(live_server.url + link.split("://", 1)[1].split("/", 1)[1].join(["/", ""]))
    ada_page.get_by_role("button", name="Join this game").click()
    ada_page.wait_for_load_state()
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE

    pages = {
        game.seats.get(user=creator).position: page,
        game.seats.get(email="ada@example.com").position: ada_page,
    }
    seats = {s.position: s for s in game.seats.all()}

    # Both place their start markers by clicking a point, in turn order.
    for _ in range(2):
        state = services.load_state(game)
        mover = state.seat_to_move
        p = pages[mover]
        p.goto(live_server.url + seat_path(seats[mover]))
        move = greedy_move(state, mover)
        place_start_by_clicking(p, state.board.point_index[move.point])
        game.refresh_from_db()
        assert services.load_state(game).starts[mover] is not None

    # The next player builds by clicking lines; screenshots of the board page.
    state = services.load_state(game)
    mover = state.seat_to_move
    p = pages[mover]
    p.goto(live_server.url + seat_path(seats[mover]))
    p.screenshot(path=str(artifacts / "board-desktop.png"), full_page=True)
    p.set_viewport_size(PHONE)
    p.screenshot(path=str(artifacts / "board-phone.png"), full_page=True)
    p.set_viewport_size(DESKTOP)
    move = greedy_move(state, mover)
    build_by_clicking(p, [state.board.line_id(line) for line in move.lines])
    game.refresh_from_db()
    assert game.version == state.version + 1

    # Fast-forward with greedy moves; the browser makes the move that ends the round.
    for _ in range(200):
        state = services.load_state(game)
        mover = state.seat_to_move
        move = greedy_move(state, mover)
        ends_round = isinstance(move, rules.Build) and any(
            e["type"] == "round_scored" for e in rules.decide(state, mover, move)
        )
        if not ends_round:
            game = play_turn(game)
            continue
        p = pages[mover]
        p.goto(live_server.url + seat_path(seats[mover]))
        build_by_clicking(p, [state.board.line_id(line) for line in move.lines])
        break
    else:
        pytest.fail("the round did not end within 200 turns")
    assert "Round 1 scored" in p.content()
    game.refresh_from_db()
    assert game.round == 2 or game.status == Game.Status.FINISHED

    # A finished game (its log imported through the write path: playing this one out turn
    # by turn took a minute and showed the browser nothing new), then its replay.
    game = simulated_game()
    assert game.status == Game.Status.FINISHED
    p.goto(live_server.url + seat_path(game.seats.get(position=0)))
    assert "The game is over" in p.content()
    try:
        replay = reverse("games:replay", args=[game.pk])
    except NoReverseMatch:
        pytest.xfail("the replay page (games:replay) is not there yet")
    p.goto(live_server.url + replay)
    assert p.locator("svg").count() >= 1
    p.screenshot(path=str(artifacts / "replay-desktop.png"), full_page=True)
