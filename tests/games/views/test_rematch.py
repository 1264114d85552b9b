"""Play again: a finished table starts its next game from a page whose button POSTs."""

import random
import re
from datetime import timedelta

import pytest
from django.core import mail
from django.urls import reverse

from games import rules, services
from games.bots import COVER_BOT, simulate
from games.links import make_token, seat_for_token, seat_path
from games.models import Game, Seat
from games.services import substitutes
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
    """The seat a signed seat path opens."""
    return seat_for_token(path.split("/")[2])


@pytest.fixture
def finished():
    """A finished four-seat game with coloured track, a clock, a strong bot at seat 2 and
    a player who left at seat 3 (mid-game, as players leave)."""
    events = simulate("transamerica", 4, random.Random(0))
    # A few moves into round 2 (not at a round's end, after which the server deals).
    middle = [n for n, event in enumerate(events) if event["type"] == "round_started"][1] + 5
    game = simulated_game(4, until=middle)
    substitutes.leave(game.seats.get(position=3))
    # The rest of the game, numbered after the leaving.
    rest = [{key: value for key, value in event.items() if key != "seq"} for event in events]
    game = services.append_events(game, rest[middle:])
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
    # The seat whose player left (a bot covered it) starts nothing, even through its link.
    left = client.post(again_path(finished.seats.get(position=3)))
    assert left.status_code == 409 and "Only a player at the table" in left.content.decode()
    assert Game.objects.count() == 2
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


# What the pages say, in each language: the German is written out, so a missing
# translation fails.
WORDS = {
    "en": {
        "offer": "Play again with the same players",
        "start": "Start the new game",
        "set up": "This table's next game is set up.",
        "keep": "We have no email address for you: keep this page",
    },
    "de": {
        "offer": "Noch einmal mit denselben Leuten spielen",
        "start": "Das neue Spiel anlegen",
        "set up": "Das nächste Spiel dieses Tisches ist angelegt.",
        "keep": "Wir haben keine E-Mail-Adresse von dir: Behalte die Adresse dieser Seite",
    },
}


def played_by_link_only(game: Game, position: int) -> Seat:
    """Seat ``position`` held by a person with no address, who plays by its link alone (as
    a game imported without addresses seats its players)."""
    game.seats.filter(position=position).update(email="", user=None)
    return game.seats.get(position=position)


def in_language(game: Game, language: str) -> None:
    Game.objects.filter(pk=game.pk).update(language=language)


@pytest.mark.parametrize("language", ["en", "de"])
def test_a_player_with_only_the_link_plays_again_through_it(client, finished, language):
    in_language(finished, language)
    words = WORDS[language]
    seat = played_by_link_only(finished, 1)
    board = client.get(seat_path(seat)).content.decode()
    assert words["offer"] in board
    assert seats_linked(board, "again/") == [seat]
    page = client.get(again_path(seat)).content.decode()
    assert words["start"] in page
    assert Game.objects.count() == 1  # a GET starts nothing
    answer = client.post(again_path(seat), follow=True)
    new = Game.objects.get(follows=finished)
    mine = new.seats.get(position=0)  # the seats turned by one: seat 1 starts
    assert (mine.name, mine.email, mine.joined_at is not None) == ("Player 1", "", True)
    assert seat_at(answer.redirect_chain[-1][0]) == mine
    # Nothing will mail them this link: the page says to keep it.
    assert words["keep"] in answer.content.decode()
    assert [m.to for m in Message.objects.filter(game=new, kind="invitation")] == [
        "seat0@example.com"
    ]
    board = client.get(seat_path(seat)).content.decode()
    assert words["set up"] in board and seats_linked(board, "again/") == [seat]


def test_a_player_with_only_the_link_finds_the_game_another_player_started(client, finished):
    seat = played_by_link_only(finished, 1)
    asking = finished.seats.get(position=0)
    page = client.get(again_path(asking)).content.decode()
    assert "Player 1 — no email: their link to this game leads to the new one" in page
    client.post(again_path(asking))
    new = Game.objects.get(follows=finished)
    moved = new.seats.get(position=0)
    # Seated and joined (nobody can invite an address that is not there), never mailed:
    # with the asker joined and bots at the rest, the game is on at once.
    assert (moved.name, moved.email, moved.joined_at is not None) == ("Player 1", "", True)
    assert not Message.objects.filter(game=new).exclude(to__contains="@").exists()
    assert new.status == Game.Status.ACTIVE
    # Their link to the finished game leads to their seat in the new one.
    board = client.get(seat_path(seat)).content.decode()
    assert "next game is set up" in board
    again = client.get(again_path(seat)).content.decode()
    assert "Start the new game" not in again
    assert moved in seats_linked(again)


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_replay_page_leads_to_play_again(client, finished, language):
    in_language(finished, language)
    words = WORDS[language]
    seat = finished.seats.get(position=0)
    seat_replay = reverse("games:seat_replay", args=[make_token(seat)])
    replay = client.get(seat_replay).content.decode()
    assert words["offer"] in replay
    assert seats_linked(replay, "again/") == [seat]
    # Not for a bot's seat, nor in a game still being played.
    bot = finished.seats.get(position=2)
    replay = client.get(reverse("games:seat_replay", args=[make_token(bot)])).content.decode()
    assert "/again/" not in replay and words["offer"] not in replay
    running = GameFactory().seats.get(position=0)
    replay = client.get(reverse("games:seat_replay", args=[make_token(running)]))
    assert replay.status_code == 200 and "/again/" not in replay.content.decode()
    # The public replay: a player of the game, signed in, is offered their account's way.
    public = reverse("games:replay", args=[finished.pk])
    account_again = reverse("games:account_again", args=[finished.pk])
    assert account_again not in client.get(public).content.decode()
    user = UserFactory(email=seat.email, language=language)
    Seat.objects.filter(pk=seat.pk).update(user=user)
    client.force_login(user)
    replay = client.get(public).content.decode()
    assert f'href="{account_again}"' in replay and words["offer"] in replay
    # Once the table plays again, the replay says so and leads to the seat in it.
    client.post(again_path(seat))
    replay = client.get(seat_replay).content.decode()
    assert words["set up"] in replay and seats_linked(replay, "again/") == [seat]
