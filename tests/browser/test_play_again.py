"""Play again, declining and the rules in a browser: by taps on a phone in German, by
mouse on a desktop in English; screenshots in test-artifacts/play-again/."""

import pytest

from games.links import seat_path
from games.models import Game, Seat
from tests.factories import simulated_game

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_a_finished_table_plays_again_and_an_invitee_declines(browser, live_server, artifacts):
    folder = artifacts / "play-again"
    folder.mkdir(exist_ok=True)
    finished = simulated_game(3)
    Game.objects.filter(pk=finished.pk).update(language="de")
    asking = finished.seats.get(position=1)

    phone = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    page = phone.new_page()
    page.goto(live_server.url + seat_path(asking))
    with page.expect_navigation():
        page.get_by_role("link", name="Noch einmal mit denselben Leuten spielen").tap()
    assert Game.objects.count() == 1  # the page, not a game yet
    page.screenshot(path=str(folder / "play-again-de-phone.png"), full_page=True)
    with page.expect_navigation():
        page.get_by_role("button", name="Das neue Spiel anlegen").tap()
    new = Game.objects.get(follows=finished)
    assert page.get_by_text("Das neue Spiel ist angelegt.").is_visible()
    page.screenshot(path=str(folder / "next-game-de-phone.png"), full_page=True)
    with page.expect_navigation():
        page.get_by_role("link", name="Die Regeln von TransAmerica").tap()
    assert page.get_by_role("heading", name="Die Regeln von TransAmerica").is_visible()
    page.screenshot(path=str(folder / "rules-de-phone.png"), full_page=True)
    phone.close()

    # The invited player, who reads English, declines by mouse.
    invited = new.seats.get(position=2)  # seat 0 of the finished game, now last
    Seat.objects.filter(pk=invited.pk).update(language="en")
    desktop = browser.new_context(viewport={"width": 1280, "height": 900})
    page = desktop.new_page()
    page.goto(live_server.url + seat_path(invited))
    assert page.get_by_role("heading", name="What is TransAmerica?").is_visible()
    page.screenshot(path=str(folder / "invitation-en-desktop.png"), full_page=True)
    with page.expect_navigation():
        page.get_by_role("button", name="Decline").click()
    assert page.get_by_text("You have declined this invitation").is_visible()
    page.screenshot(path=str(folder / "declined-en-desktop.png"), full_page=True)
    invited.refresh_from_db()
    assert invited.declined_at is not None
    with page.expect_navigation():
        page.get_by_role("link", name="The rules of TransAmerica").click()
    page.screenshot(path=str(folder / "rules-en-desktop.png"), full_page=True)
    desktop.close()
