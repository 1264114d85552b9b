"""Every page at phone width (360 px): no sideways scroll, and no critical or serious
accessibility violation found by axe-core; screenshots in test-artifacts/pages/."""

import pytest
from django.test import Client
from django.urls import reverse

from games.links import make_token, seat_path
from games.services import load_state
from notifications import emails
from tests.browser.axe import serious_violations
from tests.conftest import play_turn
from tests.factories import GameFactory, UserFactory, second_round_events, simulated_game

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 360, "height": 740}


def pages(user) -> dict[str, str]:
    """A path for every page a player meets, the board page in each of its states."""
    placing = GameFactory(created_by=user)
    placing.seats.filter(position=0).update(user=user, email=user.email)
    to_move = placing.seats.get(position=load_state(placing).seat_to_move)
    waiting = placing.seats.exclude(pk=to_move.pk).first()
    building = GameFactory()
    for _ in range(3):
        building = play_turn(building)
    builder = building.seats.get(position=load_state(building).seat_to_move)
    finished = simulated_game()
    new_round = simulated_game(until=second_round_events(moves=0))  # round 1 just scored
    summary_seat = new_round.seats.get(position=load_state(new_round).seat_to_move)
    setup = GameFactory(started=False)
    invited = setup.seats.get(position=1)
    return {
        "home": reverse("games:home"),
        "login": reverse("accounts:login"),
        "preferences": reverse("accounts:preferences"),
        "new-game": reverse("games:new"),
        "manage": reverse("games:manage", args=[placing.pk]),
        "finished-games": reverse("games:history"),
        "replay": reverse("games:replay", args=[finished.pk]),
        "board-placing": seat_path(to_move),
        "board-waiting": seat_path(waiting),
        "board-building": seat_path(builder),
        "board-finished": seat_path(finished.seats.first()),
        "board-round-summary": seat_path(summary_seat),
        "seat-history": reverse("games:seat_replay", args=[make_token(to_move)]),
        "invitation": seat_path(invited),
        "unsubscribe": reverse(
            "notifications:unsubscribe", args=[emails.unsubscribe_token(user.email, "your_turn")]
        ),
        "vacation": reverse("notifications:vacation"),
    }


def test_every_page_fits_a_phone_and_passes_axe(browser, live_server, artifacts):
    user = UserFactory(name="Dana", email="dana@example.org")
    client = Client()
    client.force_login(user)
    folder = artifacts / "pages"
    folder.mkdir(exist_ok=True)
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    page = context.new_page()
    problems = {}
    paths = pages(user)
    for name, path in paths.items():
        page.goto(live_server.url + path)
        page.wait_for_load_state("networkidle")
        scroll, width = page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        found = serious_violations(page)
        if scroll > width:
            found.append(f"scrolls sideways: {scroll} px wide in {width}")
        if found:
            problems[name] = found
        page.screenshot(path=str(folder / f"{name}-phone.png"), full_page=True)
    context.close()
    # The same pages at desktop size, for the eye.
    wide = browser.new_context(viewport={"width": 1280, "height": 900})
    wide.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    page = wide.new_page()
    for name, path in paths.items():
        page.goto(live_server.url + path)
        page.screenshot(path=str(folder / f"{name}-desktop.png"), full_page=True)
    wide.close()
    assert problems == {}
