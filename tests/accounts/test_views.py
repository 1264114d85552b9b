import re

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse

from accounts.login_links import make_token
from accounts.models import User
from tests.factories import GameFactory, UserFactory

pytestmark = pytest.mark.django_db

LOGIN = reverse("accounts:login")


def ask_for_link(client, capture, address, **extra):
    with capture(execute=True):
        response = client.post(LOGIN, {"email": address, **extra})
    return response


def emailed_path(address):
    """The path of the sign-in link in the last email to ``address``."""
    message = [m for m in mail.outbox if m.to == [address]][-1]
    url = re.search(r"https?://\S+/accounts/login/\S+/", message.body).group(0)
    return url[url.index("/accounts/") :]


def confirm_path(address, next_path=""):
    return reverse("accounts:login_confirm", args=[make_token(address, next_path)])


class TestLoginForm:
    def test_shows_the_form(self, client):
        response = client.get(LOGIN)
        assert response.status_code == 200
        assert b'name="email"' in response.content

    def test_emails_a_link_and_says_where(self, client, django_capture_on_commit_callbacks):
        response = ask_for_link(client, django_capture_on_commit_callbacks, "Ada@Example.org")
        assert response.status_code == 302
        assert response["Location"] == reverse("accounts:login_sent")
        assert [m.to for m in mail.outbox] == [["ada@example.org"]]
        page = client.get(response["Location"])
        assert b"ada@example.org" in page.content
        # Asking creates no account: the link does, when used.
        assert not User.objects.exists()

    def test_the_same_answer_whether_or_not_the_address_has_an_account(
        self, client, django_capture_on_commit_callbacks
    ):
        UserFactory(email="known@example.org")
        known = ask_for_link(client, django_capture_on_commit_callbacks, "known@example.org")
        unknown = ask_for_link(client, django_capture_on_commit_callbacks, "new@example.org")
        assert known.status_code == unknown.status_code == 302
        assert known["Location"] == unknown["Location"]
        assert len(mail.outbox) == 2

    @pytest.mark.parametrize("address", ["", "not-an-address", "a@"])
    def test_a_bad_address_is_a_clear_error(self, client, address):
        response = client.post(LOGIN, {"email": address})
        assert response.status_code == 200
        assert response.context["form"].errors["email"]
        assert mail.outbox == []

    def test_needs_csrf(self):
        response = Client(enforce_csrf_checks=True).post(LOGIN, {"email": "ada@example.org"})
        assert response.status_code == 403

    def test_the_sent_page_without_a_request_goes_back_to_the_form(self, client):
        response = client.get(reverse("accounts:login_sent"))
        assert response.status_code == 302 and response["Location"] == LOGIN


class TestConfirm:
    def test_get_shows_a_button_and_changes_nothing(self, client):
        path = confirm_path("ada@example.org")
        response = client.get(path)
        assert response.status_code == 200
        assert b'<button type="submit">Sign in</button>' in response.content
        assert b"ada@example.org" in response.content
        assert not User.objects.exists()
        assert "_auth_user_id" not in client.session
        # Opening it again (a mail scanner, then the player) still works.
        assert client.get(path).status_code == 200

    def test_the_emailed_link_signs_in_and_makes_the_account(
        self, client, django_capture_on_commit_callbacks
    ):
        ask_for_link(client, django_capture_on_commit_callbacks, "ada@example.org")
        path = emailed_path("ada@example.org")
        response = client.post(path)
        assert response.status_code == 302
        assert response["Location"] == reverse("games:home")
        user = User.objects.get(email="ada@example.org")
        assert client.session["_auth_user_id"] == str(user.pk)
        # It worked once.
        client.post(reverse("accounts:logout"))
        again = client.post(path)
        assert again.status_code == 400
        assert b"already been used" in again.content
        assert "_auth_user_id" not in client.session

    def test_signing_in_claims_seats_played_by_link(self, client):
        game = GameFactory()
        game.seats.filter(position=2).update(email="ADA@example.org")
        client.post(confirm_path("ada@example.org"))
        user = User.objects.get(email="ada@example.org")
        assert game.seats.get(position=2).user == user
        home = client.get(reverse("games:home"))
        assert [e.game for e in home.context["dashboard"].active] + [
            e.game for e in home.context["dashboard"].waiting_for_me
        ] == [game]

    def test_goes_on_to_the_page_that_asked_for_sign_in(self, client):
        response = client.post(confirm_path("ada@example.org", reverse("accounts:preferences")))
        assert response["Location"] == reverse("accounts:preferences")

    def test_the_next_page_survives_the_email(self, client, django_capture_on_commit_callbacks):
        form = client.get(LOGIN, {"next": "/history/?player=ada"})
        assert form.context["form"]["next"].value() == "/history/?player=ada"
        ask_for_link(
            client, django_capture_on_commit_callbacks, "ada@example.org", next="/history/"
        )
        response = client.post(emailed_path("ada@example.org"))
        assert response["Location"] == "/history/"

    def test_a_foreign_next_is_dropped(self, client):
        response = client.post(confirm_path("ada@example.org", "https://evil.example/"))
        assert response["Location"] == reverse("games:home")

    @pytest.mark.parametrize("method", ["get", "post"])
    def test_a_tampered_link_says_so(self, client, method):
        path = confirm_path("ada@example.org").replace(":", ":x", 1)
        response = getattr(client, method)(path)
        assert response.status_code == 400
        assert b"not valid" in response.content
        assert not User.objects.exists()

    def test_needs_csrf(self):
        response = Client(enforce_csrf_checks=True).post(confirm_path("ada@example.org"))
        assert response.status_code == 403
        assert not User.objects.exists()


class TestLogout:
    def test_signs_out_on_post(self, client):
        client.force_login(UserFactory())
        response = client.post(reverse("accounts:logout"))
        assert response.status_code == 302
        assert "_auth_user_id" not in client.session

    def test_get_is_refused(self, client):
        client.force_login(UserFactory())
        assert client.get(reverse("accounts:logout")).status_code == 405
        assert "_auth_user_id" in client.session


class TestPreferences:
    URL = reverse("accounts:preferences")

    def test_needs_sign_in(self, client):
        response = client.get(self.URL)
        assert response.status_code == 302
        assert response["Location"] == f"{LOGIN}?next={self.URL}"

    def test_shows_the_current_choices(self, client):
        user = UserFactory(name="Ada", timezone="Europe/Berlin")
        client.force_login(user)
        response = client.get(self.URL)
        assert response.status_code == 200
        form = response.context["form"]
        assert form["name"].value() == "Ada"
        assert form["timezone"].value() == "Europe/Berlin"

    def test_saves(self, client):
        user = UserFactory()
        client.force_login(user)
        response = client.post(
            self.URL,
            {
                "name": "Grace",
                "email_mode": "daily_digest",
                "timezone": "America/New_York",
                # reminders unticked
            },
        )
        assert response.status_code == 302
        user.refresh_from_db()
        assert (user.name, user.email_mode, user.reminders, user.timezone) == (
            "Grace",
            "daily_digest",
            False,
            "America/New_York",
        )

    @pytest.mark.parametrize(
        ("field", "value"),
        [
            ("timezone", "Mars/Olympus_Mons"),
            ("email_mode", "hourly"),
            ("name", "x" * 101),
            ("name", "Ada\nBcc: x@example.org"),
        ],
    )
    def test_bad_input_is_refused_and_changes_nothing(self, client, field, value):
        user = UserFactory(name="Ada")
        client.force_login(user)
        data = {"name": "Grace", "email_mode": "each_turn", "timezone": "UTC", "reminders": "on"}
        data[field] = value
        response = client.post(self.URL, data)
        assert response.status_code == 200
        assert response.context["form"].errors[field]
        user.refresh_from_db()
        assert user.name == "Ada"
