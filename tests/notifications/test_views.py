import pytest
from django.test import Client
from django.urls import reverse

from games.links import seat_path
from notifications import emails
from notifications.models import MailPreference, Message, Suppression
from tests.conftest import delivered
from tests.factories import GameFactory, UserFactory

pytestmark = pytest.mark.django_db


def unsubscribe_path(address: str, kind: str) -> str:
    return reverse("notifications:unsubscribe", args=[emails.unsubscribe_token(address, kind)])


def test_get_of_the_unsubscribe_link_asks_and_changes_nothing(client):
    response = client.get(unsubscribe_path("ada@example.org", "your_turn"))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Fewer emails to ada@example.org" in page
    assert "One email a day listing the games waiting for my move" in page
    assert "Stop turn emails" in page and "Stop every email" in page
    assert not Suppression.objects.exists() and not MailPreference.objects.exists()


def test_one_click_from_a_game_email_moves_the_player_to_the_daily_digest():
    client = Client(enforce_csrf_checks=True)  # RFC 8058: no session, no token
    body = {"List-Unsubscribe": "One-Click"}
    response = client.post(unsubscribe_path("Ada@Example.org", "your_turn"), body)
    assert response.status_code == 200
    assert "one email a day" in response.content.decode()
    assert not Suppression.objects.exists()  # never all mail, mid-game
    assert MailPreference.objects.get(address="ada@example.org").digest
    # Twice is fine.
    assert client.post(unsubscribe_path("ada@example.org", "reminder"), body).status_code == 200
    assert MailPreference.objects.count() == 1


def test_one_click_of_an_account_holder_changes_their_account(client):
    user = UserFactory(email="bea@example.org")
    client.post(unsubscribe_path("bea@example.org", "round_scored"))
    user.refresh_from_db()
    assert user.email_mode == user.EmailMode.DAILY_DIGEST
    assert not MailPreference.objects.exists()


def stops(address: str, kind: str) -> bool:
    return (address, kind) in Suppression.stopping([(address, kind)])


def test_one_click_from_an_invitation_stops_invitations_only(client):
    client.post(unsubscribe_path("ada@example.org", "invitation"))
    assert stops("ada@example.org", "invitation")
    assert not stops("ada@example.org", "your_turn")
    seat = GameFactory(started=False).seats.get(position=0)
    seat.email = "ada@example.org"
    assert delivered(emails.invitation(seat)).status == Message.Status.SUPPRESSED


@pytest.mark.parametrize(
    "choice, stopped, running",
    [
        ("stop_kind", "round_scored", "your_turn"),
        ("stop_all", "your_turn", "login_link"),
    ],
)
def test_the_page_does_what_the_player_chose(client, choice, stopped, running):
    path = unsubscribe_path("ada@example.org", "round_scored")
    assert client.post(path, {"choice": choice}).status_code == 200
    assert stops("ada@example.org", stopped)
    assert not stops("ada@example.org", running)


def test_an_email_queued_before_the_choice_is_not_sent_after_it(client):
    game = GameFactory()
    row = emails.write(emails.round_scored(game, game.seats.all(), 1, game.version)[0])
    client.post(unsubscribe_path(row.to, "round_scored"), {"choice": "stop_kind"})
    assert delivered(row).status == Message.Status.SUPPRESSED


def test_a_choice_the_page_does_not_offer_is_refused_and_changes_nothing(client):
    path = unsubscribe_path("ada@example.org", "your_turn")
    response = client.post(path, {"choice": "no_invitations"})
    assert response.status_code == 400
    assert "Select a valid choice" in response.content.decode()
    assert not Suppression.objects.exists() and not MailPreference.objects.exists()


def test_a_link_from_before_links_named_their_kind_still_stops_everything(client):
    old = reverse("notifications:unsubscribe", args=[emails.unsubscribe_token("ada@example.org")])
    assert client.post(old).status_code == 200
    assert Suppression.objects.get().reason == Suppression.Reason.UNSUBSCRIBED


def test_a_tampered_unsubscribe_link_changes_nothing(client):
    path = unsubscribe_path("ada@example.org", "your_turn").rstrip("/") + "x/"
    assert client.post(path).status_code == 400
    assert not Suppression.objects.exists()


def test_the_banner_shows_only_when_mail_is_stopped(client):
    seat = GameFactory().seats.get(position=0)
    assert "mail-stopped" not in client.get(seat_path(seat)).content.decode()
    Suppression.objects.create(address=seat.email, reason=Suppression.Reason.BOUNCED)
    html = client.get(seat_path(seat)).content.decode()
    assert "We are not emailing seat0@example.com" in html
    assert "bounced" in html
    assert reverse("notifications:resume") in html


def test_the_banner_says_when_a_player_chose_less_mail_and_undoes_it(client):
    seat = GameFactory().seats.get(position=0)
    MailPreference.objects.create(address=seat.email, digest=True, stopped_kinds=["game_over"])
    html = client.get(seat_path(seat)).content.decode()
    assert "seat0@example.com gets one email a day" in html
    assert "You stopped game results." in html
    client.post(reverse("notifications:resume"), {"token": emails.resume_token(seat.email)})
    assert not MailPreference.objects.exists()
    assert "mail-stopped" not in client.get(seat_path(seat)).content.decode()


def test_turning_mail_back_on_needs_the_signed_token_and_csrf():
    Suppression.objects.create(address="seat0@example.com", reason=Suppression.Reason.COMPLAINED)
    strict = Client(enforce_csrf_checks=True)
    token = emails.resume_token("seat0@example.com")
    assert strict.post(reverse("notifications:resume"), {"token": token}).status_code == 403
    client = Client()
    bad = client.post(reverse("notifications:resume"), {"token": token + "x"})
    assert bad.status_code == 400
    assert Suppression.objects.exists()
    # An unsubscribe token is not a resume token.
    other = emails.unsubscribe_token("seat0@example.com")
    assert client.post(reverse("notifications:resume"), {"token": other}).status_code == 400
    response = client.post(reverse("notifications:resume"), {"token": token, "next": "/s/abc/"})
    assert response.status_code == 302 and response["Location"] == "/s/abc/"
    assert not Suppression.objects.exists()


def test_turning_mail_back_on_never_redirects_off_site(client):
    token = emails.resume_token("seat0@example.com")
    response = client.post(
        reverse("notifications:resume"), {"token": token, "next": "https://evil.example/"}
    )
    assert response.status_code == 200


def test_the_mailbox_lists_emails_in_debug_mode_only(client, settings):
    message = delivered(emails.login_link("ada@example.org", "https://railmail.example.org/l/abc/"))
    settings.DEBUG = False
    assert client.get(reverse("notifications:mailbox")).status_code == 404
    detail = reverse("notifications:mailbox_message", args=[message.pk])
    assert client.get(detail).status_code == 404
    settings.DEBUG = True
    listing = client.get(reverse("notifications:mailbox"))
    assert b"Sign in to Railmail" in listing.content
    page = client.get(reverse("notifications:mailbox_message", args=[message.pk]))
    assert b'<a href="https://railmail.example.org/l/abc/"' in page.content


def test_a_player_takes_their_seat_back_from_the_bot(client):
    game = GameFactory()
    seat = game.seats.get(position=0)
    assert "Take my seat back" not in client.get(seat_path(seat)).content.decode()
    seat.autopilot = True
    seat.save()
    # The board page shows it at once (the cached page is keyed by it).
    html = client.get(seat_path(seat)).content.decode()
    assert "Take my seat back" in html
    html = html.split('class="banner autopilot"')[1]
    url = html.split('action="')[1].split('"')[0]
    assert Client(enforce_csrf_checks=True).post(url).status_code == 403
    response = Client().post(url)
    assert response.status_code == 302 and response["Location"] == seat_path(seat)
    seat.refresh_from_db()
    assert not seat.autopilot
    assert game.engine_events()[-1]["type"] == "seat_taken_back"
    # GET changes nothing.
    assert Client().get(url).status_code == 405
    assert "Take my seat back" not in client.get(seat_path(seat)).content.decode()


class TestVacation:
    def signed_in(self, client, **fields):
        from tests.factories import UserFactory

        user = UserFactory(**fields)
        client.force_login(user)
        return user

    def test_needs_sign_in(self, client):
        response = client.get(reverse("notifications:vacation"))
        assert response.status_code == 302
        assert reverse("accounts:login") in response["Location"]

    def test_the_preferences_page_links_to_it(self, client):
        self.signed_in(client)
        response = client.get(reverse("accounts:preferences"))
        assert reverse("notifications:vacation").encode() in response.content
        assert b"14 days left" in response.content

    def test_start_pauses_the_clocks_and_end_gives_back_unused_days(self, client):
        from datetime import timedelta

        user = self.signed_in(client)
        game = GameFactory(time_per_move=timedelta(days=2))
        game.seats.filter(position=game.seat_to_move).update(user=user, email=user.email)

        page = client.get(reverse("notifications:vacation"))
        assert b"Start my vacation" in page.content
        response = client.post(reverse("notifications:vacation"), {"days": "3"}, follow=True)
        assert b"your clocks are paused" in response.content
        assert b"End my vacation now" in response.content
        user.refresh_from_db()
        game.refresh_from_db()
        assert user.vacation_days_left == 11 and user.vacation_until is not None
        assert game.deadline is None

        response = client.post(reverse("notifications:vacation_end"), follow=True)
        assert b"2 days went back to your allowance" in response.content
        user.refresh_from_db()
        game.refresh_from_db()
        assert user.vacation_days_left == 13 and user.vacation_until is None
        assert game.deadline is not None

    @pytest.mark.parametrize(
        ("days", "error"),
        [("0", b"greater than or equal to 1"), ("15", b"14 vacation days left"), ("x", b"")],
    )
    def test_bad_numbers_are_clear_errors_and_change_nothing(self, client, days, error):
        user = self.signed_in(client)
        response = client.post(reverse("notifications:vacation"), {"days": days})
        assert response.status_code == 200
        assert b"errorlist" in response.content and error in response.content
        user.refresh_from_db()
        assert user.vacation_days_left == 14 and user.vacation_until is None

    def test_with_no_days_left_there_is_no_form(self, client):
        self.signed_in(client, vacation_days_left=0)
        response = client.get(reverse("notifications:vacation"))
        assert b"used all your vacation days" in response.content
        assert b"Start my vacation" not in response.content

    def test_get_of_end_changes_nothing_and_post_needs_csrf(self, client):
        user = self.signed_in(client)
        client.post(reverse("notifications:vacation"), {"days": "2"})
        assert client.get(reverse("notifications:vacation_end")).status_code == 405
        strict = Client(enforce_csrf_checks=True)
        strict.force_login(user)
        assert strict.post(reverse("notifications:vacation_end")).status_code == 403
        assert strict.post(reverse("notifications:vacation"), {"days": "1"}).status_code == 403
        user.refresh_from_db()
        assert user.vacation_until is not None and user.vacation_days_left == 12


def test_the_mailbox_says_when_a_waiting_email_will_be_written(client, settings):
    settings.DEBUG = True
    emails.login_link("ada@example.org", "https://railmail.example.org/l/abc/")
    listing = client.get(reverse("notifications:mailbox")).content.decode()
    assert "Written when it is sent, from " in listing
