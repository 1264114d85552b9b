"""The invitation page: what the game is, how long it takes, its rules, and declining."""

import re

import pytest
from django.core import mail
from django.urls import reverse

from games import services
from games.links import make_token, seat_path
from games.models import Game
from games.services import GameSettings, SeatSpec
from notifications.models import Message
from tests.conftest import delivered
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def creator():
    return UserFactory(name="Ada", email="ada@example.com")


@pytest.fixture
def setup_game(creator):
    """A game waiting for Bea and Cy, created by Ada, who plays."""
    seats = [
        SeatSpec("Ada", "ada@example.com", creator),
        SeatSpec("Bea", "bea@example.com", joined=False),
        SeatSpec("Cy", "cy@example.com", joined=False),
    ]
    settings = GameSettings(board="transeuropa", options={"exclusive_tracks": 3})
    return services.open_game(settings, seats, created_by=creator)


def decline_path(seat):
    return reverse("games:decline", args=[make_token(seat)])


def test_the_invitation_says_what_the_game_is_how_long_it_takes_and_links_the_rules(
    client, setup_game
):
    bea = setup_game.seats.get(position=1)
    page = client.get(seat_path(bea)).content.decode()
    assert "What is TransEuropa?" in page
    assert "about six weeks" in page and "about a week with build plans" in page
    assert "/rules/transeuropa/?lang=en" in page
    assert "/rules/coloured-track/?lang=en" in page
    assert re.search(r'<form method="post" action="/s/[^"]+/decline/">', page)
    invitation = Message.objects.get(kind="invitation", to="bea@example.com")
    delivered(invitation)
    body = mail.outbox[-1].body
    assert "/rules/transeuropa/?lang=en" in body and "about a week with build plans" in body
    assert "decline" in body


def test_declining_takes_a_post_and_tells_the_creator_once(client, setup_game, creator):
    bea = setup_game.seats.get(position=1)
    path = decline_path(bea)
    opened = client.get(path)
    assert opened.status_code == 302 and opened.url == path.removesuffix("decline/")
    bea.refresh_from_db()
    assert bea.declined_at is None  # a GET (a mail scanner) declines nothing
    answer = client.post(decline_path(bea), follow=True)
    page = answer.content.decode()
    assert "You have declined" in page and "Join this game" in page
    bea.refresh_from_db()
    assert bea.declined_at is not None and bea.joined_at is None
    client.post(decline_path(bea))  # twice: one email
    told = Message.objects.filter(kind="seat_declined")
    assert [m.to for m in told] == ["ada@example.com"]
    delivered(told.get())
    email = mail.outbox[-1]
    assert email.subject.startswith("Bea declined")
    assert reverse("games:manage", args=[setup_game.pk]) in email.body
    # The seat waits as an unanswered one: the creator sees it, may hand it on or start.
    client.force_login(creator)
    manage = client.get(reverse("games:manage", args=[setup_game.pk])).content.decode()
    assert "Declined" in manage
    services.replace_invited(bea, "Dee", "dee@example.com")
    bea.refresh_from_db()
    assert bea.declined_at is None


def test_a_player_who_declined_may_still_join(client, setup_game):
    cy = setup_game.seats.get(position=2)
    client.post(decline_path(cy))
    client.post(reverse("games:join", args=[make_token(cy)]))
    cy.refresh_from_db()
    assert cy.joined_at is not None and cy.declined_at is None


def test_a_seat_taken_or_a_game_started_cannot_be_declined(client, setup_game):
    ada = setup_game.seats.get(position=0)
    page = client.post(decline_path(ada), follow=True).content.decode()
    assert "You have already joined this game." in page
    services.start_game(setup_game)  # started without waiting for Bea
    bea = setup_game.seats.get(position=1)
    page = client.post(decline_path(bea), follow=True).content.decode()
    assert "The game has started" in page
    assert not Message.objects.filter(kind="seat_declined").exists()
    assert client.post("/s/not-a-token/decline/").status_code == 404


def test_without_a_creators_account_the_waiting_players_are_told(client):
    seats = [SeatSpec("Ada", "ada@example.com"), SeatSpec("Bea", "bea@example.com", joined=False)]
    game = services.open_game(GameSettings(board="transamerica", language="de"), seats)
    client.post(decline_path(game.seats.get(position=1)))
    told = Message.objects.get(kind="seat_declined")
    assert told.to == "ada@example.com"
    delivered(told)
    assert mail.outbox[-1].subject.startswith("Bea hat abgesagt")
    assert Game.objects.get(pk=game.pk).status == Game.Status.SETUP


@pytest.mark.parametrize(
    ("path", "language", "words"),
    [
        ("/rules/transamerica/", "en", ["The rules of TransAmerica", "tunnel through a mountain"]),
        ("/rules/transeuropa/?lang=de", "de", ["Die Regeln von TransEuropa", "Fähre"]),
        ("/rules/coloured-track/?lang=de", "de", ["Farbschienen"]),
    ],
)
def test_the_rules_pages_in_the_readers_language(client, path, language, words):
    page = client.get(path)
    assert page.status_code == 200
    assert page.headers["Content-Language"] == language
    text = page.content.decode()
    assert all(word in text for word in words)
    assert f'<html lang="{language}">' in text


def test_an_unknown_game_has_no_rules_page(client):
    assert client.get("/rules/monopoly/").status_code == 404
