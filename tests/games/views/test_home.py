import re
from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from django.urls import reverse

from games.links import seat_for_token
from tests.factories import GameFactory, UserFactory, simulated_game

pytestmark = pytest.mark.django_db


def test_visitors_get_a_welcome_with_the_latest_finished_games(client):
    game = simulated_game(names=["Ada", "Grace", "Alan"])
    running = GameFactory()
    response = client.get(reverse("games:home"))
    assert response.status_code == 200
    body = response.content.decode()
    assert "TransAmerica and TransEuropa by email" in body
    assert reverse("games:replay", args=[game.pk]) in body
    assert reverse("games:replay", args=[running.pk]) not in body
    assert reverse("games:history") in body


def test_the_welcome_without_finished_games(client):
    response = client.get(reverse("games:home"))
    assert b"No game has finished yet" in response.content


def test_a_signed_in_player_sees_their_games_waiting_for_them_first(client):
    user = UserFactory(timezone="Asia/Tokyo")
    mine = GameFactory(time_per_move=timedelta(days=2))
    theirs = GameFactory()
    finished = simulated_game()
    GameFactory()  # someone else's
    to_move = mine.seats.get(position=mine.seat_to_move)
    to_move.user = user
    to_move.save()
    waiting_seat = theirs.seats.get(position=(theirs.seat_to_move + 1) % 3)
    waiting_seat.user = user
    waiting_seat.save()
    finished.seats.filter(position=0).update(user=user)
    client.force_login(user)

    response = client.get(reverse("games:home"))

    assert response.status_code == 200
    body = response.content.decode()
    assert body.index("Waiting for your move") < body.index("Other games in play")
    assert body.index("Other games in play") < body.index(">Finished</h2>")
    # Each game links to the player's own board page, in the dashboard's order.
    tokens = dict.fromkeys(re.findall(r'href="/s/([^/"]+)/"', body))
    assert [seat_for_token(token) for token in tokens] == [
        to_move,
        waiting_seat,
        finished.seats.get(position=0),
    ]
    assert "Your move" in body
    # The deadline is shown in the player's time zone.
    deadline = mine.deadline.astimezone(ZoneInfo("Asia/Tokyo"))
    assert deadline.strftime("%H:%M") in body
    assert reverse("games:replay", args=[finished.pk]) in body
    board = response.context["dashboard"]
    assert [e.game for e in board.waiting_for_me] == [mine]
    assert [e.game for e in board.active] == [theirs]
    assert [e.game for e in board.finished] == [finished]


def test_a_player_without_games_is_told_so(client):
    client.force_login(UserFactory())
    response = client.get(reverse("games:home"))
    assert b"You have no games yet" in response.content


def test_the_dashboard_lists_games_i_set_up_without_playing(client):
    from games.models import Game
    from tests.factories import GameFactory, UserFactory

    organiser = UserFactory()
    game = GameFactory(created_by=organiser)
    Game.objects.filter(pk=game.pk).update(title="The club's game")
    client.force_login(organiser)
    page = client.get("/").content.decode()
    assert "Games you set up for others" in page and "The club&#x27;s game" in page


def test_games_in_play_are_not_called_other_when_none_waits_for_the_player(client):
    user = UserFactory()
    theirs = GameFactory()
    theirs.seats.filter(position=(theirs.seat_to_move + 1) % 3).update(user=user)
    client.force_login(user)
    body = client.get(reverse("games:home")).content.decode()
    assert ">Games in play</h2>" in body
    assert "Other games in play" not in body


def test_the_pages_link_the_site_icon_and_favicon_ico_leads_to_it(client):
    body = client.get(reverse("games:home")).content.decode()
    icon = re.search(r'<link rel="icon" href="([^"]+)"', body).group(1)
    assert icon.endswith("favicon.svg")
    answer = client.get("/favicon.ico")
    assert answer.status_code == 301 and answer["Location"] == icon
    assert client.get(icon).status_code == 200
