"""Every page at phone width (360 px): no sideways scroll, and no critical or serious
accessibility violation found by axe-core; screenshots in test-artifacts/pages/."""

import pytest
from django.test import Client
from django.urls import reverse

from tests.browser.axe import serious_violations
from tests.every_page import pages
from tests.factories import GameFactory, UserFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 360, "height": 740}


def test_every_page_fits_a_phone_and_passes_axe(browser, live_server, artifacts):
    """One test, not shares of the pages: the games behind them are made once (making them
    took a third of each share's time), and one context a size serves every page."""
    user = UserFactory(name="Dana", email="dana@example.org")
    client = Client()
    client.force_login(user)
    session = [
        {"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}
    ]
    folder = artifacts / "pages"
    folder.mkdir(exist_ok=True)
    paths = dict(sorted(pages(user).items()))
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    context.add_cookies(session)
    page = context.new_page()
    problems = {}
    for name, path in paths.items():
        # goto waits for the load event: the page, its styles, scripts and pictures are in.
        page.goto(live_server.url + path)
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
    wide.add_cookies(session)
    page = wide.new_page()
    for name, path in paths.items():
        page.goto(live_server.url + path)
        page.screenshot(path=str(folder / f"{name}-desktop.png"), full_page=True)
    wide.close()
    assert problems == {}


def test_the_local_mailbox_fits_a_phone(browser, live_server, artifacts, settings):
    settings.DEBUG = True  # the mailbox is the local developer's, shown in debug mode only
    GameFactory()  # its your-turn email is in the outbox
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(live_server.url + reverse("notifications:mailbox"))
    assert page.locator("table.mailbox tbody tr").count() >= 1
    scroll, width = page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert scroll <= width, f"the mailbox scrolls sideways: {scroll} px wide in {width}"
    page.screenshot(path=str(artifacts / "pages" / "mailbox-phone.png"), full_page=True)
    context.close()
