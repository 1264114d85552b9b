"""The daily digest, with the clock moved by passing ``now``."""

from datetime import timedelta

import pytest
from django.utils import timezone

from notifications.models import Message
from tests.conftest import sent
from tests.factories import GameFactory, UserFactory
from tests.minute_jobs import run_minute_jobs

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("anymail_backend")]


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
