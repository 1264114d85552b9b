"""The new-game form in a browser: the time zone is the browser's to begin with."""

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import UserFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_the_time_zone_is_the_browsers_to_begin_with(browser, live_server, artifacts):
    user = UserFactory(name="Dana", email="dana@example.org")  # zone: the default, UTC
    client = Client()
    client.force_login(user)
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, timezone_id="America/Chicago"
    )
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    page = context.new_page()
    page.goto(live_server.url + reverse("games:new"))
    assert page.locator("select[name=time_zone]").input_value() == "America/Chicago"
    # Common zones first, each place once (no "US/Central" beside "America/Chicago").
    groups = page.locator("select[name=time_zone] optgroup")
    assert groups.count() == 2
    assert groups.nth(0).locator("option").first.get_attribute("value") == "UTC"
    assert page.locator("select[name=time_zone] option[value='US/Central']").count() == 0
    page.screenshot(path=str(artifacts / "new-game-phone.png"), full_page=True)
    context.close()
