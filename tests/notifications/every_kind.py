"""One outbox row of every kind of email, in a realistic game: for the tests that look at
each kind as a reader gets it (SpamAssassin, the phone's browser)."""

from datetime import timedelta

from django.utils import timezone

from games.models import Game
from games.services import consent
from notifications import emails
from notifications.models import Channel, Message
from tests.conftest import play_turn
from tests.factories import GameFactory, UserFactory


def every_kind() -> dict[str, Message]:
    creator = UserFactory(name="Ada Lovelace", email="ada@example.org")
    game = GameFactory(created_by=creator)
    Game.objects.filter(pk=game.pk).update(
        title="Friday game", deadline=timezone.now() + timedelta(days=2)
    )
    game.refresh_from_db()
    seats = list(game.seats.order_by("position"))
    rows = {
        "invitation": emails.invitation(seats[1], reminder=True),
        "login_link": emails.login_link("ada@example.org", "https://railmail.example.org/l/x/"),
        "your_turn": Message.objects.get(kind="your_turn"),
        "reminder": emails.reminder(game, seats[game.seat_to_move], 24),
        "bot_took_over": emails.write(emails.bot_took_over(game, seats, seats[2], game.version)[0]),
        "reply_answer": emails.reply_answer(seats[0], "stale", "The game moved on."),
        "reply_played": emails.reply_played(
            seats[0],
            game.version,
            words="Denver to 1 east of Denver, 1 track, towards Omaha",
            ignored="Thanks, Bea!",
            in_reply_to="<reply-1@mail.example.com>",
        ),
    }
    # A digest reader, awaited in a game of their own (their turn emails are dropped).
    reader = UserFactory(email_mode="daily_digest", email="dee@example.org")
    waiting = GameFactory()
    Game.objects.filter(pk=waiting.pk).update(title="Sunday game")
    waiting.seats.filter(position=waiting.seat_to_move).update(user=reader, email=reader.email)
    rows["digest"] = emails.digest(reader.email, timezone.now().date())
    finished = GameFactory(seats=2)
    while finished.status != "finished":
        finished = play_turn(finished)
    rows["round_scored"] = Message.objects.filter(kind="round_scored", game=finished).first()
    rows["game_over"] = Message.objects.filter(kind="game_over", game=finished).first()
    # Consent at the table: a nudge (a reminder of its own words), an early end.
    to_move = game.seat_to_move
    nudged = game.seats.get(position=to_move)
    rows["nudge"] = emails.write(emails.nudge(game, nudged, (to_move + 1) % 3, 99))
    agreed = GameFactory(seats=2)
    for seat in agreed.seats.all():
        consent.agree_to_end(seat)
    rows["game_ended_early"] = Message.objects.get(kind="game_over", game=agreed, seat__position=0)
    # Channels besides email: a seat's channel to confirm, and one turned off.
    channel = Channel.objects.create(url="ntfys://ntfy.sh/friday-game", seat=seats[1])
    rows["channel_confirm"] = emails.channel_confirm(seats[1], channel)
    rows["channel_off"] = emails.channel_off(seats[1].email, channel)
    # A game waiting for its players: a first invitation (what the game is, its rules),
    # and the creator told that an invited player declined.
    waiting = GameFactory(created_by=creator, started=False, options={"exclusive_tracks": 3})
    waiting.seats.filter(position=1).update(joined_at=None)
    invited = waiting.seats.get(position=1)
    rows["invitation_first"] = emails.invitation(invited)
    rows["seat_declined"] = emails.seat_declined(invited)[0]
    return rows
