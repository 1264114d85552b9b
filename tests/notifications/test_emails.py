import pytest
from django.conf import settings
from django.core import mail
from django.db import transaction

from notifications import emails
from notifications.models import Message, Suppression
from tests.factories import GameFactory, UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("anymail_backend")]


@pytest.fixture
def anymail_backend(settings):
    settings.EMAIL_BACKEND = "anymail.backends.test.EmailBackend"
    settings.SITE_URL = "https://railmail.example.org"
    settings.DEFAULT_FROM_EMAIL = "Railmail <games@railmail.example.org>"


def test_an_invitation_is_written_in_the_transaction_and_sent_after_commit(
    anymail_backend, django_capture_on_commit_callbacks
):
    game = GameFactory(started=False)
    game.created_by = UserFactory(name="Ada")
    game.save()
    seat = game.seats.get(position=1)
    seat.joined_at = None
    seat.save()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        message = emails.invitation(seat)
    assert message.status == Message.Status.PENDING
    assert mail.outbox == []  # nothing leaves before the commit
    for callback in callbacks:
        callback()
    message.refresh_from_db()
    assert message.status == Message.Status.SENT
    [sent] = mail.outbox
    assert sent.to == ["seat1@example.com"]
    assert "You're invited" in sent.subject and game.display_name in sent.subject
    assert "Ada invites you" in sent.body
    assert "https://railmail.example.org/s/" in sent.body
    html, mimetype = sent.alternatives[0]
    assert mimetype == "text/html" and "Open your seat" in html
    assert sent.tags == ["invitation"]
    assert sent.metadata == {"outbox_id": str(message.pk), "game": str(game.pk)}
    assert sent.extra_headers["Message-ID"] == f"<{message.token}@railmail.example.org>"
    assert sent.extra_headers["References"] == f"<game-{game.thread_token}@railmail.example.org>"
    assert sent.extra_headers["In-Reply-To"] == f"<game-{game.thread_token}@railmail.example.org>"
    assert sent.extra_headers["Auto-Submitted"] == "auto-generated"
    assert sent.extra_headers["X-Auto-Response-Suppress"] == "All"
    assert sent.extra_headers["List-Id"] == "Railmail invitations <invitation.railmail.example.org>"
    assert sent.extra_headers["Reply-To"] == settings.RAILMAIL_REPLY_TO
    assert sent.track_clicks is False and sent.track_opens is False
    assert sent.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert sent.extra_headers["List-Unsubscribe"].startswith(
        "<https://railmail.example.org/mail/unsubscribe/"
    )


def test_an_invitation_sent_twice_is_one_email(anymail_backend, django_capture_on_commit_callbacks):
    seat = GameFactory(started=False).seats.get(position=0)
    with django_capture_on_commit_callbacks(execute=True):
        first = emails.invitation(seat)
        second = emails.invitation(seat)
    assert first.pk == second.pk
    assert len(mail.outbox) == 1


def test_a_rotated_link_sends_a_fresh_one(anymail_backend, django_capture_on_commit_callbacks):
    from games.links import rotate_link

    seat = GameFactory(started=False).seats.get(position=0)
    with django_capture_on_commit_callbacks(execute=True):
        emails.invitation(seat)
    with django_capture_on_commit_callbacks(execute=True):
        rotate_link(seat)
        emails.invitation(seat)
    assert len(mail.outbox) == 2
    assert mail.outbox[0].body != mail.outbox[1].body


def test_an_invitation_whose_link_died_before_it_left_is_not_sent(
    anymail_backend, django_capture_on_commit_callbacks
):
    from games.links import rotate_link

    seat = GameFactory(started=False).seats.get(position=0)
    with django_capture_on_commit_callbacks(execute=True):
        dead = emails.invitation(seat)
        rotate_link(seat)  # the seat was given to someone else, say, before delivery
        live = emails.invitation(seat)
    dead.refresh_from_db()
    assert dead.status == Message.Status.DROPPED
    [email] = mail.outbox
    assert email.extra_headers["Message-ID"] == f"<{live.token}@railmail.example.org>"


def test_an_invitation_reminder_is_a_separate_email(
    anymail_backend, django_capture_on_commit_callbacks
):
    seat = GameFactory(started=False).seats.get(position=0)
    seat.joined_at = None
    seat.save()
    with django_capture_on_commit_callbacks(execute=True):
        emails.invitation(seat)
        emails.invitation(seat, reminder=True)
        emails.invitation(seat, reminder=True)
    assert [m.subject.split(" · ")[0] for m in mail.outbox] == [
        "You're invited",
        "Reminder: you're invited",
    ]


def test_a_rolled_back_invitation_is_never_sent(
    anymail_backend, django_capture_on_commit_callbacks
):
    from django.db import transaction

    seat = GameFactory(started=False).seats.get(position=0)
    with (
        django_capture_on_commit_callbacks(execute=True),
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        emails.invitation(seat)
        raise RuntimeError("the event failed")
    assert not Message.objects.exists()
    assert mail.outbox == []


def test_a_login_link_is_sent_every_time_it_is_asked_for(
    anymail_backend, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        emails.login_link("Ada@Example.org", "https://railmail.example.org/accounts/login/abc/")
        emails.login_link("ada@example.org", "https://railmail.example.org/accounts/login/def/")
    assert [m.to for m in mail.outbox] == [["ada@example.org"], ["ada@example.org"]]
    assert "https://railmail.example.org/accounts/login/def/" in mail.outbox[1].body
    assert mail.outbox[0].subject == "Sign in to Railmail"
    assert "References" not in mail.outbox[0].extra_headers


def test_mail_to_a_stopped_address_is_not_sent_but_login_links_are(
    anymail_backend, django_capture_on_commit_callbacks
):
    Suppression.objects.create(address="seat0@example.com", reason="unsubscribed")
    seat = GameFactory(started=False).seats.get(position=0)
    with django_capture_on_commit_callbacks(execute=True):
        invitation = emails.invitation(seat)
        emails.login_link("seat0@example.com", "https://railmail.example.org/l/x/")
    invitation.refresh_from_db()  # delivery decided it (the task ran after commit)
    assert invitation.status == Message.Status.SUPPRESSED
    assert [m.tags for m in mail.outbox] == [["login_link"]]


def test_a_seat_without_an_address_gets_nothing():
    seat = GameFactory(started=False).seats.get(position=0)
    seat.email = ""
    assert emails.invitation(seat) is None


def test_the_same_email_queued_twice_is_one_row_and_the_transaction_goes_on():
    game = GameFactory()
    seat = game.seats.get(position=0)
    with transaction.atomic():
        first = emails.write(emails.your_turn(game, seat, 1007, "digest"))
        # A duplicate fails to insert (the unique constraint), inside its own savepoint.
        second = emails.write(emails.your_turn(game, seat, 1007, "digest"))
        assert first.pk == second.pk
        # The transaction is whole: it can still write and read.
        third = emails.write(emails.your_turn(game, seat, 1008, "digest"))
    assert Message.objects.filter(pk__in=[first.pk, third.pk]).count() == 2
    assert (
        Message.objects.filter(
            kind=emails.YOUR_TURN, seat=seat, event__in=["v1007", "v1008"]
        ).count()
        == 2
    )
