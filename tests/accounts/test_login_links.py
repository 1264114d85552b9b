from datetime import timedelta

import pytest
from django.contrib.sessions.backends.db import SessionStore
from django.core import signing
from django.test import RequestFactory
from django.utils import timezone

from accounts import login_links
from accounts.login_links import BadLoginLink, check_token, make_token
from accounts.models import User
from tests.factories import GameFactory, UserFactory

pytestmark = pytest.mark.django_db


def request():
    req = RequestFactory().post("/")
    req.session = SessionStore()
    return req


def sign_in(token):
    return login_links.sign_in(request(), token)


def test_a_token_names_the_address_in_its_stored_form():
    asked = check_token(make_token("  Ada@Example.ORG "))
    assert asked.email == "ada@example.org"
    assert asked.next_path == ""


def test_a_new_address_gets_its_account_when_the_link_is_used():
    token = make_token("new@example.org")
    assert not User.objects.filter(email="new@example.org").exists()
    user, _ = sign_in(token)
    assert user.email == "new@example.org"
    assert not user.has_usable_password()
    assert user.last_login is not None


def test_a_link_works_once():
    user = UserFactory()
    token = make_token(user.email)
    sign_in(token)
    with pytest.raises(BadLoginLink) as error:
        check_token(token)
    assert error.value.reason == "used"
    with pytest.raises(BadLoginLink):
        sign_in(token)


def test_a_link_for_a_new_address_works_once_too():
    first, second = make_token("new@example.org"), make_token("new@example.org")
    sign_in(first)
    with pytest.raises(BadLoginLink, match="used"):
        sign_in(second)


def test_signing_in_any_way_uses_up_older_links():
    user = UserFactory()
    token = make_token(user.email)
    user.last_login = timezone.now()
    user.save()
    with pytest.raises(BadLoginLink, match="used"):
        check_token(token)


def test_a_link_expires_after_an_hour(monkeypatch):
    user = UserFactory()
    made = timezone.now()
    token = make_token(user.email)
    assert check_token(token).email == user.email
    # TimestampSigner reads the clock through time.time().
    later = (made + login_links.MAX_AGE + timedelta(seconds=1)).timestamp()
    monkeypatch.setattr(signing.time, "time", lambda: later)
    with pytest.raises(BadLoginLink) as error:
        check_token(token)
    assert error.value.reason == "expired"


@pytest.mark.parametrize(
    "tamper",
    [
        lambda t: t[:-1] + ("A" if t[-1] != "A" else "B"),
        lambda t: t[:20],
        lambda t: "garbage",
        lambda t: "",
    ],
)
def test_a_tampered_link_is_refused(tamper):
    token = make_token("ada@example.org")
    with pytest.raises(BadLoginLink) as error:
        check_token(tamper(token))
    assert error.value.reason == "tampered"


def test_a_token_signed_for_something_else_is_refused():
    forged = signing.dumps({"e": "ada@example.org", "l": "", "n": ""}, salt="games.links.seat")
    with pytest.raises(BadLoginLink, match="tampered"):
        check_token(forged)


def test_a_disabled_account_cannot_sign_in():
    user = UserFactory(is_active=False)
    with pytest.raises(BadLoginLink, match="inactive"):
        sign_in(make_token(user.email))


@pytest.mark.parametrize(
    ("asked", "kept"),
    [
        ("/games/3/replay/?move=4", "/games/3/replay/?move=4"),
        ("https://evil.example/", ""),
        ("//evil.example/", ""),
        ("/\\evil.example/", ""),
        ("javascript:alert(1)", ""),
        ("", ""),
    ],
)
def test_only_a_path_on_this_site_is_kept_as_next(asked, kept):
    assert check_token(make_token("ada@example.org", asked)).next_path == kept


def test_the_url_is_absolute(settings):
    settings.SITE_URL = "https://railmail.example.org"
    url = login_links.login_url("ada@example.org")
    assert url.startswith("https://railmail.example.org/accounts/login/")
    token = url.removeprefix("https://railmail.example.org/accounts/login/").rstrip("/")
    assert check_token(token).email == "ada@example.org"


class TestClaimSeats:
    def test_seats_under_the_address_without_an_account_are_claimed(self):
        game = GameFactory()
        other = GameFactory()
        game.seats.filter(position=1).update(email="Ada@Example.org")
        other.seats.filter(position=0).update(email="ada@example.org")
        user, _ = sign_in(make_token("ada@example.org"))
        assert {(s.game_id, s.position) for s in user.seats.all()} == {
            (game.pk, 1),
            (other.pk, 0),
        }

    def test_a_seat_already_held_by_an_account_is_not_taken(self):
        holder = UserFactory(email="holder@example.org")
        game = GameFactory()
        game.seats.filter(position=1).update(email="ada@example.org", user=holder)
        user, _ = sign_in(make_token("ada@example.org"))
        assert not user.seats.exists()
        assert game.seats.get(position=1).user == holder

    def test_other_addresses_are_left_alone(self):
        game = GameFactory()
        user, _ = sign_in(make_token("ada@example.org"))
        assert not user.seats.exists()
        assert not game.seats.filter(user__isnull=False).exists()
