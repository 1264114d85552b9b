"""Emails are built when they are delivered: a your-turn email waits, and is dropped when
the player has seen the position or moved on; other kinds are built from their own
moment."""

from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from games.bots import greedy_move
from games.models import Game
from games.services import load_state, record_seen, submit_move
from notifications import emails
from notifications.models import Message
from tests.conftest import delivered, play_turn, sent
from tests.factories import GameFactory, UserFactory, simulated_game
from tests.minute_jobs import run_minute_jobs

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("anymail_backend")]


@pytest.fixture
def grace(settings):
    settings.RAILMAIL_TURN_EMAIL_GRACE = 60
    return timedelta(seconds=60)


def started_game(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        game = GameFactory()
    return game


def your_turn_row(game) -> Message:
    return Message.objects.get(kind="your_turn", event=f"v{game.version}")


def test_a_your_turn_email_waits_its_grace_period(grace, django_capture_on_commit_callbacks):
    game = started_game(django_capture_on_commit_callbacks)
    row = your_turn_row(game)
    assert row.status == Message.Status.PENDING and row.body_text == ""
    assert sent("your_turn") == []  # not with the commit
    run_minute_jobs(timezone.now() + grace / 2)
    assert sent("your_turn") == []
    run_minute_jobs(timezone.now() + grace + timedelta(seconds=1))
    [email] = sent("your_turn")
    row.refresh_from_db()
    assert row.status == Message.Status.SENT
    assert email.body == row.body_text and "Your turn" in row.subject


def test_a_position_the_player_has_seen_is_not_mailed(grace, django_capture_on_commit_callbacks):
    game = started_game(django_capture_on_commit_callbacks)
    seat = game.seats.get(position=load_state(game).seat_to_move)
    record_seen(seat, game.version)
    run_minute_jobs(timezone.now() + grace + timedelta(seconds=1))
    assert sent("your_turn") == []
    assert your_turn_row(game).status == Message.Status.DROPPED


def test_a_turn_seen_but_not_played_gets_its_email_an_hour_later(
    grace, django_capture_on_commit_callbacks
):
    game = started_game(django_capture_on_commit_callbacks)
    seat = game.seats.get(position=load_state(game).seat_to_move)
    with django_capture_on_commit_callbacks(execute=True):
        record_seen(seat, game.version)  # a glance, and away
    run_minute_jobs(timezone.now() + grace + timedelta(seconds=1))
    assert sent("your_turn") == []  # the email waiting its grace is not needed now...
    later = Message.objects.get(kind="your_turn", event=f"v{game.version}-seen")
    run_minute_jobs(timezone.now() + timedelta(minutes=59))
    assert sent("your_turn") == []
    run_minute_jobs(timezone.now() + emails.SEEN_BUT_NOT_PLAYED + timedelta(seconds=1))
    [email] = sent("your_turn")  # ...but an hour on, the turn is still theirs
    assert email.to == [seat.email] and "Your turn" in email.subject
    later.refresh_from_db()
    assert later.status == Message.Status.SENT


def test_a_turn_seen_and_then_played_gets_no_email_after_the_look(
    grace, django_capture_on_commit_callbacks
):
    game = started_game(django_capture_on_commit_callbacks)
    state = load_state(game)
    seat = game.seats.get(position=state.seat_to_move)
    with django_capture_on_commit_callbacks(execute=True):
        record_seen(seat, game.version)
        record_seen(seat, game.version)  # looking twice is one look
    assert Message.objects.filter(kind="your_turn", event__endswith="-seen").count() == 1
    submit_move(game, seat, greedy_move(state, seat.position), game.version)
    run_minute_jobs(timezone.now() + emails.SEEN_BUT_NOT_PLAYED + timedelta(seconds=1))
    assert [m for m in sent("your_turn") if m.to == [seat.email]] == []


def test_seeing_an_older_position_does_not_count(grace, django_capture_on_commit_callbacks):
    game = started_game(django_capture_on_commit_callbacks)
    game = play_turn(play_turn(game))  # two moves later (a three-seat game)
    seat = game.seats.get(position=load_state(game).seat_to_move)
    record_seen(seat, game.version - 1)
    assert delivered(your_turn_row(game)).status == Message.Status.SENT


def test_a_player_who_moved_first_gets_no_email(grace, django_capture_on_commit_callbacks):
    game = started_game(django_capture_on_commit_callbacks)
    row = your_turn_row(game)
    # They played from a link they already had, before the email left.
    state = load_state(game)
    seat = game.seats.get(position=state.seat_to_move)
    submit_move(game, seat, greedy_move(state, seat.position), game.version)
    assert delivered(row).status == Message.Status.DROPPED
    assert sent("your_turn") == []


def test_a_reminder_is_never_dropped(django_capture_on_commit_callbacks):
    game = started_game(django_capture_on_commit_callbacks)
    seat = game.seats.get(position=load_state(game).seat_to_move)
    record_seen(seat, game.version)
    row = emails.reminder(game, seat, 12)
    assert delivered(row).status == Message.Status.SENT
    assert "Reminder" in sent("reminder")[0].subject


def test_a_round_email_shows_that_round_after_the_next_has_begun(
    django_capture_on_commit_callbacks,
):
    game = GameFactory(seats=2)
    with django_capture_on_commit_callbacks(execute=False):
        while game.round == 1:
            game = play_turn(game)
    scored = load_state(game).last_scoring
    assert game.round == 2  # the next round is dealt in the same append
    row = Message.objects.filter(kind="round_scored").first()
    row = delivered(row)
    assert "Round 1 scored" in row.subject
    for hand in scored["hands"]:
        for city in hand:
            assert city in row.body_text
    assert mail.outbox[-1].extra_headers["Message-ID"].startswith(f"<{row.token}@")


def test_a_your_turn_email_gives_the_deadline_in_words_on_the_readers_clock():
    game = GameFactory()  # its first your-turn email is queued, not yet delivered
    game.deadline = timezone.now() + timedelta(days=2, hours=1, minutes=1)
    game.time_zone = "Europe/Berlin"
    game.save()
    seat = game.seats.get(position=load_state(game).seat_to_move)
    row = delivered(Message.objects.get(kind="your_turn", to=seat.email))
    assert "Move in 2\xa0days, 1\xa0hour (" in row.body_text
    assert " CET)" in row.body_text or " CEST)" in row.body_text  # the game's zone
    seat.user = UserFactory(timezone="America/New_York")
    seat.save()
    again = delivered(emails.reminder(game, seat, 24))
    assert " EST)." in again.body_text or " EDT)." in again.body_text  # their own zone


def test_an_invitation_says_who_invites_and_that_nothing_more_comes(
    django_capture_on_commit_callbacks,
):
    game = GameFactory(started=False, created_by=UserFactory(name="Ada"))
    game.time_per_move = timedelta(days=2)
    game.save()
    seat = game.seats.get(position=1)
    seat.joined_at = None
    seat.save()
    row = delivered(emails.invitation(seat))
    assert "Ada invites you to play" in row.body_text
    assert "a game of TransAmerica" in row.body_text
    assert "Each player has 2\xa0days for a move." in row.body_text
    assert "Nothing more comes from us unless you join." in row.body_text
    assert "because Ada invited you" in row.body_text
    assert "because you play" not in row.body_text


def test_a_sign_in_email_says_it_works_once_within_an_hour():
    row = delivered(emails.login_link("ada@example.org", "https://railmail.example.org/l/x/"))
    assert "works once, within an hour" in row.body_text
    assert "List-Unsubscribe" not in row.headers  # asked for there and then


def test_one_missed_deadline_is_one_deadline(django_capture_on_commit_callbacks):
    game = started_game(django_capture_on_commit_callbacks)
    game.bot_takeover_after = 1
    game.save()
    seats = list(game.seats.all())
    row = delivered(emails.write(emails.bot_took_over(game, seats, seats[0], game.version)[1]))
    assert "missed 1 deadline in a row" in row.body_text


def test_a_digest_shows_each_games_round_missing_track_and_deadline():
    user = UserFactory(email_mode="daily_digest", timezone="Europe/Berlin")
    game = GameFactory()
    game.deadline = timezone.now() + timedelta(hours=5)
    game.save()
    game.seats.filter(position=game.seat_to_move).update(user=user, email=user.email)
    row = delivered(emails.digest(user.email, timezone.now().date()))
    assert f"{game.display_name}, round 1" in row.body_text
    assert "Move in 4\xa0hours, 59\xa0minutes (" in row.body_text


def test_emails_are_written_in_each_recipients_language():
    """Spot checks in real German: the game is German, one player chose English on the
    board page, and a worker builds both emails (no request, no active language)."""
    game = GameFactory(language="de")
    game = play_turn(game)
    rows = {row.seat.position: row for row in Message.objects.filter(kind="your_turn")}
    to_move = load_state(game).seat_to_move
    german = delivered(rows[to_move])
    assert german.subject.startswith("Du bist am Zug · ")
    assert "Deine Städte:" in german.body_text and "Mach deinen Zug:" in german.body_text
    [sent_german] = [m for m in sent("your_turn") if m.to == [german.to]]
    assert sent_german.extra_headers["Content-Language"] == "de"
    english_seat = game.seats.get(position=to_move)
    english_seat.language = "en"
    english_seat.save(update_fields=["language"])
    again = emails.reminder(game, english_seat, 24)
    assert delivered(again).subject.startswith("Reminder: your move is due within 24 hours")


def test_the_german_game_over_email_says_hat_for_one_winner_and_one_closer():
    """The count is the number of winners (and of players who closed the last round), not
    the letters of their joined names ("Anke haben gewonnen")."""
    game = simulated_game(seed=1, names=["Anke", "Bernd", "Clara"])
    Game.objects.filter(pk=game.pk).update(language="de")
    state = load_state(game)
    assert len(state.winners) == 1 and len(state.last_scoring["connected"]) == 1
    row = Message.objects.filter(kind="game_over", game=game).first()
    body = delivered(row).body_text
    winner = ["Anke", "Bernd", "Clara"][state.winners[0]]
    assert f"{winner} hat gewonnen." in body and "haben gewonnen" not in body
    assert "hat alle fünf Städte verbunden" in body and "haben alle" not in body
