"""Play again: a finished table starts its next game from a page whose button POSTs."""

import re
from datetime import timedelta

import pytest
from django.core import mail
from django.urls import reverse

from games import rules
from games.bots import COVER_BOT
from games.links import make_token, seat_for_token, seat_path
from games.models import Game, Seat
from notifications.models import Message
from tests.conftest import delivered
from tests.factories import GameFactory, UserFactory, simulated_game

pytestmark = pytest.mark.django_db


def again_path(seat: Seat) -> str:
    return reverse("games:play_again", args=[make_token(seat)])


def seats_linked(page: str, what: str = "") -> list[Seat]:
    """The seats that the page's signed links (to ``what`` under a seat) open."""
    tokens = re.findall(rf'href="/s/([^/"]+)/{what}"', page)
    return [seat_for_token(token) for token in tokens]


def seat_at(path: str) -> Seat:
    """The seat a signed seat path opens (tokens are signed anew each second)."""
    return seat_for_token(path.split("/")[2])


@pytest.fixture
def finished():
    """A finished four-seat game with coloured track, a clock, a strong bot at seat 2 and
    a player who left at seat 3."""
    game = simulated_game(4)
    assert game.status == Game.Status.FINISHED
    Game.objects.filter(pk=game.pk).update(
        options={"exclusive_tracks": 3},
        time_per_move=timedelta(days=2),
        weekend_pause=True,
        title="Friday game",
    )
    game.seats.filter(position=2).update(
        name="Strong bot", is_bot=True, bot_level="strong", email=""
    )
    game.seats.filter(position=3).update(email="", autopilot=True)  # as leaving leaves it
    game.refresh_from_db()
    return game


def test_a_get_shows_the_next_table_and_never_starts_a_game(client, finished):
    seat = finished.seats.get(position=1)
    page = client.get(again_path(seat))
    assert page.status_code == 200
    text = page.content.decode()
    assert "Start the new game" in text
    # The new order: seat 1 starts, seat 0 last; the left seat is the cover bot.
    names = re.findall(r"<li>([^<—(]+)", text.split("Players, in the new order")[1])
    assert [n.strip() for n in names] == ["Player 1", "Strong bot", "Normal bot", "Player 0"]
    assert Game.objects.count() == 1
    assert client.head(again_path(seat)).status_code == 200
    assert Game.objects.count() == 1
    # In the seat's language.
    Game.objects.filter(pk=finished.pk).update(language="de")
    page = client.get(again_path(seat)).content.decode()
    assert "Noch einmal mit denselben Leuten spielen" in page


def test_the_button_starts_one_game_of_the_same_table_and_a_second_press_finds_it(client, finished):
    asking = finished.seats.get(position=1)
    answer = client.post(again_path(asking), follow=True)
    assert Game.objects.count() == 2
    new = Game.objects.exclude(pk=finished.pk).get()
    assert new.follows == finished
    assert (new.board, new.options, new.time_per_move, new.weekend_pause, new.title) == (
        finished.board,
        {"exclusive_tracks": 3, "cities_must_join_start": False},
        timedelta(days=2),
        True,
        "Friday game",
    )
    assert rules.replay(new.engine_events()).options.exclusive_tracks == 3
    seats = list(new.seats.order_by("position"))
    assert [(s.name, s.email, s.is_bot, s.bot_level) for s in seats] == [
        ("Player 1", "seat1@example.com", False, ""),
        ("Strong bot", "", True, "strong"),
        ("Normal bot", "", True, COVER_BOT),
        ("Player 0", "seat0@example.com", False, ""),
    ]
    # Whoever pressed has joined and lands on their new seat; the other person is invited.
    assert seats[0].joined_at is not None and seats[3].joined_at is None
    assert new.status == Game.Status.SETUP
    assert seat_at(answer.redirect_chain[-1][0]) == seats[0]
    assert "The new game is set up" in answer.content.decode()
    invited = Message.objects.filter(game=new, kind="invitation")
    assert [m.to for m in invited] == ["seat0@example.com"]
    email = delivered(invited.get())
    assert email.status == Message.Status.SENT
    body = mail.outbox[-1].body
    assert f"The same table plays again, after {finished.display_name}." in body
    assert "/rules/coloured-track/?lang=en" in body

    # Pressed again, from the other seat: the same game, no other.
    other = finished.seats.get(position=0)
    again = client.post(again_path(other), follow=True)
    assert Game.objects.count() == 2
    assert seat_at(again.redirect_chain[-1][0]) == seats[3]
    assert "already set up" in again.content.decode()
    page = client.get(again_path(asking)).content.decode()
    assert seats[0] in seats_linked(page) and "Start the new game" not in page
    # The finished game's board page says so too (its cached copy is not stale).
    board = client.get(seat_path(asking)).content.decode()
    assert "next game is set up" in board


def test_the_board_page_and_the_game_over_email_lead_to_the_page(client, finished):
    seat = finished.seats.get(position=0)
    board = client.get(seat_path(seat)).content.decode()
    assert seats_linked(board, "again/") == [seat]
    over = Message.objects.get(game=finished, kind="game_over", to="seat0@example.com")
    delivered(over)
    link = re.search(r"https?://\S+(/s/[^/\s]+/again/)", mail.outbox[-1].body).group(1)
    assert client.get(link).status_code == 200
    assert Game.objects.count() == 1  # opening the email's link starts nothing


def test_who_may_not_play_again_is_told_why(client, finished):
    running = GameFactory()
    seat = running.seats.get(position=0)
    refused = client.post(again_path(seat))
    assert refused.status_code == 409
    assert "The game is not over yet." in refused.content.decode()
    bot = finished.seats.get(position=2)
    refused = client.post(again_path(bot))
    assert refused.status_code == 409
    assert "Only a player at the table" in refused.content.decode()
    assert Game.objects.count() == 2  # the finished game and the running one
    assert client.post("/s/not-a-token/again/").status_code == 404
    # A link replaced by a newer one is refused too, with the way to get a fresh one.
    old = again_path(finished.seats.get(position=1))
    Seat.objects.filter(game=finished, position=1).update(link_nonce="renewed")
    stale = client.post(old)
    assert stale.status_code == 403 and Game.objects.count() == 2


def test_a_signed_in_player_plays_again_by_the_games_number(client, finished):
    user = UserFactory(email="seat0@example.com")
    path = reverse("games:account_again", args=[finished.pk])
    assert client.get(path).status_code == 302  # to sign in
    client.force_login(UserFactory())
    assert client.get(path).status_code == 404  # not a player of the game
    client.force_login(user)
    assert "Start the new game" in client.get(path).content.decode()
    assert Game.objects.count() == 1
    client.post(path)
    new = Game.objects.get(follows=finished)
    assert new.created_by == user
    assert new.seats.get(position=3).joined_at is not None  # seat 0 moved to the end
