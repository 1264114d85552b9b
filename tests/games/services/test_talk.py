"""Table talk: writing and reading, muting, reporting and hiding, and where it never goes."""

from datetime import timedelta

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from games.links import make_token, seat_path
from games.models import TalkBlock, TalkMessage, TalkReport
from games.services import talk
from notifications import emails
from tests.conftest import delivered
from tests.factories import GameFactory, simulated_game

pytestmark = pytest.mark.django_db


def seats_of(game):
    return list(game.seats.order_by("position"))


def test_a_message_written_on_the_board_page_is_read_by_the_table(client):
    game = GameFactory()
    ada, bea, cal = seats_of(game)
    url = reverse("games:talk", args=[make_token(ada)])
    answer = client.post(url, {"text": "Good luck,\nall of you!"})
    assert answer.status_code == 302 and answer["Location"].endswith("#talk-heading")
    page = client.get(seat_path(bea)).content.decode()
    assert "Good luck,<br>all of you!" in page
    assert page.count("Report to staff") == 1  # others' messages only
    # A conversation: said "just now", in no numbered list.
    assert "just now" in page and "0\xa0minutes ago" not in page
    assert '<ol class="talk-messages">' not in page


@pytest.mark.parametrize(
    "text, why",
    [
        ("   ", "Write something first."),
        ("x" * (talk.MAX_LENGTH + 1), "at most 500 characters"),
    ],
)
def test_a_message_that_cannot_be_posted_says_why_and_posts_nothing(text, why):
    ada = seats_of(GameFactory())[0]
    with pytest.raises(talk.Refused, match=why):
        talk.post(ada, text)
    assert not TalkMessage.objects.exists()


def test_the_page_says_why_a_message_was_not_sent(client):
    ada = seats_of(GameFactory())[0]
    client.post(reverse("games:talk", args=[make_token(ada)]), {"text": "x" * 600})
    page = client.get(seat_path(ada)).content.decode()
    assert "Your message was not sent" in page
    assert not TalkMessage.objects.exists()


def test_control_characters_are_dropped_but_lines_kept():
    ada = seats_of(GameFactory())[0]
    message = talk.post(ada, "one\x1b[31m\r\ntwo\x00 ")
    assert message.text == "one[31m\ntwo"


def test_a_flood_is_stopped_at_the_hourly_limit():
    ada = seats_of(GameFactory())[0]
    for n in range(talk.PER_HOUR):
        talk.post(ada, f"message {n}")
    with pytest.raises(talk.Refused, match="in the last hour"):
        talk.post(ada, "one more")
    TalkMessage.objects.update(created_at=timezone.now() - timedelta(hours=2))
    talk.post(ada, "an hour later")


def test_a_reply_still_holding_our_email_is_refused():
    game = GameFactory()
    ada = seats_of(game)[0]
    ours = "Your cities: Boston, Chicago, Denver, Seattle, Miami\nMake your move:"
    reply = (
        "Nice move!\n\nOn Monday Railmail wrote:\n"
        "> Your cities: Boston, Chicago, Denver, Seattle, Miami"
    )
    with pytest.raises(talk.Refused, match="may show your cities"):
        talk.post(ada, reply, via=TalkMessage.Via.EMAIL, sent_text=ours)
    assert not TalkMessage.objects.exists()
    talk.post(ada, "Nice move!", via=TalkMessage.Via.EMAIL, sent_text=ours)


def test_a_muted_player_is_not_read_and_can_be_read_again(client):
    game = GameFactory()
    ada, bea, _ = seats_of(game)
    talk.post(bea, "Buy my bridge")
    token = make_token(ada)
    client.post(reverse("games:talk_mute", args=[token, bea.position]))
    assert "Buy my bridge" not in client.get(seat_path(ada)).content.decode()
    assert talk.news_for(ada, None) == []
    client.post(reverse("games:talk_mute", args=[token, bea.position]))
    assert "Buy my bridge" in client.get(seat_path(ada)).content.decode()


def test_a_report_tells_staff_and_staff_hide_it_and_stop_the_writer(
    client, staff_client, settings, django_capture_on_commit_callbacks
):
    settings.ADMINS = [("Ops", "ops@example.org")]
    game = GameFactory()
    ada, bea, _ = seats_of(game)
    message = talk.post(bea, "rude words")
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("games:talk_report", args=[make_token(ada), message.pk]))
    [told] = [m for m in mail.outbox if m.to == ["ops@example.org"]]
    assert "rude words" in told.body and f"{ada.name} reported" in told.body
    assert TalkReport.objects.get().seat == ada
    staff_client.post(
        reverse("admin:games_talkmessage_changelist"),
        {"action": "hide_and_block_writers", "_selected_action": [message.pk]},
    )
    assert "rude words" not in client.get(seat_path(ada)).content.decode()
    assert TalkBlock.objects.filter(address=bea.email).exists()
    with pytest.raises(talk.Refused, match="stopped by the site's staff"):
        talk.post(bea, "again")


def test_a_report_of_a_message_at_another_table_is_not_found(client):
    ada = seats_of(GameFactory())[0]
    elsewhere = talk.post(seats_of(GameFactory())[0], "hello")
    url = reverse("games:talk_report", args=[make_token(ada), elsewhere.pk])
    assert client.post(url).status_code == 404
    assert not TalkReport.objects.exists()


def test_talk_is_folded_into_the_next_email_once(settings):
    game = GameFactory()
    to_move = game.seats.get(position=game.seat_to_move)
    other = game.seats.exclude(pk=to_move.pk).first()
    talk.post(other, "Your move, friend")
    first = delivered(emails.reminder(game, to_move, 24))
    assert "Table talk since our last email:\nPlayer" in first.body_text
    assert "Your move, friend" in first.body_text
    second = delivered(emails.reminder(game, to_move, 2))
    assert "Your move, friend" not in second.body_text  # told once
    assert TalkMessage.objects.count() == 1  # and never an email of its own


def test_talk_goes_into_the_digest():
    from tests.factories import UserFactory

    user = UserFactory(email_mode="daily_digest")
    game = GameFactory()
    game.seats.filter(position=game.seat_to_move).update(user=user, email=user.email)
    other = game.seats.exclude(position=game.seat_to_move).first()
    talk.post(other, "Hurry up")
    row = delivered(emails.digest(user.email, timezone.now().date()))
    assert "said: Hurry up" in row.body_text


def test_talk_stays_off_the_public_pages_and_record(client):
    game = simulated_game()
    seat = seats_of(game)[0]
    talk.post(seat, "a private word")
    public = client.get(reverse("games:replay", args=[game.pk])).content.decode()
    record = client.get(reverse("games:record", args=[game.pk])).content.decode()
    assert "a private word" not in public and "a private word" not in record
    # The history of the game for its players holds it.
    history = client.get(reverse("games:seat_replay", args=[make_token(seat)]))
    assert "a private word" in history.content.decode()
