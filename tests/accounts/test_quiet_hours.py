"""Quiet hours on the preferences page."""

import pytest

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_the_preferences_page_shows_and_saves_quiet_hours(client):
    user = UserFactory(name="Ada")
    client.force_login(user)
    page = client.get("/accounts/preferences/").content.decode()
    assert 'type="time"' in page and 'value="22:00"' in page and 'value="07:00"' in page
    client.post(
        "/accounts/preferences/",
        {
            "name": "Ada",
            "email_mode": user.email_mode,
            "reminders": "on",
            "timezone": "UTC",
            "quiet_start": "23:15",
            "quiet_end": "06:45",
            "language": "",
        },
    )
    user.refresh_from_db()
    assert (user.quiet_start.strftime("%H:%M"), user.quiet_end.strftime("%H:%M")) == (
        "23:15",
        "06:45",
    )
