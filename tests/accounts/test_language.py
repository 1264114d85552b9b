"""The language menu and the account's language (issue 19)."""

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def german(text: str) -> str:
    """``text`` as the German catalogue says it (never the English itself)."""
    with translation.override("de"):
        said = gettext(text)
    assert said != text, f"{text!r} has no German translation"
    return said


def test_a_browser_asking_for_german_gets_german(client):
    page = client.get(reverse("accounts:login"), HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9")
    assert page["Content-Language"] == "de"
    assert german("Sign in") in page.content.decode()
    assert '<html lang="de">' in page.content.decode()


def test_the_menu_remembers_the_choice_in_a_cookie_and_goes_back(client):
    back = reverse("accounts:login")
    answer = client.post(reverse("accounts:language"), {"language": "de", "next": back})
    assert answer.status_code == 302 and answer["Location"] == back
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "de"
    page = client.get(back, HTTP_ACCEPT_LANGUAGE="en")
    assert german("Sign in") in page.content.decode()


def test_the_menu_goes_back_only_to_this_site(client):
    answer = client.post(
        reverse("accounts:language"), {"language": "de", "next": "https://evil.example/"}
    )
    assert answer["Location"] == reverse("games:home")


def test_a_language_not_offered_is_refused_and_changes_nothing(client):
    answer = client.post(reverse("accounts:language"), {"language": "xx", "next": "/"})
    assert answer.status_code == 400
    assert settings.LANGUAGE_COOKIE_NAME not in client.cookies


def test_a_signed_in_readers_choice_is_saved_in_the_account_and_wins(client):
    user = UserFactory()
    client.force_login(user)
    client.post(reverse("accounts:language"), {"language": "de", "next": "/"})
    user.refresh_from_db()
    assert user.language == "de"
    client.cookies.pop(settings.LANGUAGE_COOKIE_NAME)
    page = client.get(reverse("accounts:preferences"), HTTP_ACCEPT_LANGUAGE="en")
    assert german("Time zone") in page.content.decode()


def test_the_preferences_page_sets_the_language_and_says_so_in_it(client):
    user = UserFactory()
    client.force_login(user)
    page = client.get(reverse("accounts:preferences"))
    form = {"name": "Ada", "email_mode": "each_turn", "reminders": "on", "timezone": "UTC"}
    answer = client.post(reverse("accounts:preferences"), {**form, "language": "de"}, follow=True)
    assert page.status_code == 200
    user.refresh_from_db()
    assert user.language == "de"
    assert german("Your preferences are saved.") in answer.content.decode()
