"""The daily digest, with the clock moved by passing ``now``."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from notifications import emails
from notifications.emails import unsubscribe_token
from notifications.models import Message
from tests.conftest import delivered, play_turn, sent
from tests.factories import GameFactory, UserFactory
from tests.minute_jobs import run_minute_jobs

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.usefixtures("anymail_backend", "turn_emails_at_once"),
]


def test_a_daily_digest_lists_the_games_waiting_once_a_day(django_capture_on_commit_callbacks):
    user = UserFactory(email_mode="daily_digest")
    games = [GameFactory(), GameFactory()]
    for game in games:
        game.seats.filter(position=game.seat_to_move).update(user=user, email=user.email)
    morning = timezone.now().replace(hour=8)
    with django_capture_on_commit_callbacks(execute=True):
        assert run_minute_jobs(morning.replace(hour=5))["digests"] == 0
        assert run_minute_jobs(morning)["digests"] == 1
        assert run_minute_jobs(morning + timedelta(hours=1))["digests"] == 0
    [digest] = sent("digest")
    assert digest.to == [user.email]
    assert digest.subject == "2 games waiting for your move"
    for game in games:
        assert game.display_name in digest.body
    assert Message.objects.filter(kind="digest").count() == 1


def test_a_player_without_an_account_who_chose_the_digest_gets_it_and_no_turn_emails(
    client, django_capture_on_commit_callbacks
):
    game = GameFactory()
    to_move = game.seats.get(position=game.seat_to_move)
    after = game.seats.get(position=(game.seat_to_move + 1) % game.seats.count())
    # The one-click unsubscribe of a turn email, as a mail client sends it.
    client.post(
        reverse("notifications:unsubscribe", args=[unsubscribe_token(after.email, "your_turn")])
    )
    with django_capture_on_commit_callbacks(execute=True):
        game = play_turn(game)  # now it is their turn: no email for it
    assert sent("your_turn") == []
    morning = timezone.now().replace(hour=8) + timedelta(days=1)
    with django_capture_on_commit_callbacks(execute=True):
        assert run_minute_jobs(morning)["digests"] == 1
    # Its turn email was dropped when due: the reader chose the digest.
    turn = Message.objects.filter(kind="your_turn", to=after.email)
    assert [row.status for row in turn] == [Message.Status.DROPPED]
    assert sent("your_turn") == []
    [digest] = sent("digest")
    assert digest.to == [after.email] and to_move.email != after.email
    assert digest.subject == "1 game waiting for your move"
    assert game.display_name in digest.body


def test_a_digest_whose_games_all_moved_on_is_not_sent(django_capture_on_commit_callbacks):
    user = UserFactory(email_mode="daily_digest")
    game = GameFactory()
    game.seats.filter(position=game.seat_to_move).update(user=user, email=user.email)
    row = emails.digest(user.email, timezone.now().date())
    play_turn(game)  # their move, made before the digest left
    assert delivered(row).status == Message.Status.DROPPED
    assert sent("digest") == []
