"""An open board page polls the game's version, and says by a POST what the player saw."""

import re

import pytest
from django.urls import reverse

from games.links import make_token, seat_for_token, seat_path
from games.services import load_state
from tests.conftest import play_turn
from tests.factories import GameFactory

pytestmark = pytest.mark.django_db


def urls(seat) -> tuple[str, str]:
    token = make_token(seat)
    return reverse("games:version", args=[token]), reverse("games:seen", args=[token])


def test_the_version_says_whose_turn_it_is(client):
    game = GameFactory()
    to_move = game.seats.get(position=load_state(game).seat_to_move)
    other = game.seats.exclude(pk=to_move.pk).first()
    answer = client.get(urls(to_move)[0])
    assert answer.json() == {"version": game.version, "your_turn": True}
    assert "no-cache" in answer["Cache-Control"]
    assert client.get(urls(other)[0]).json() == {"version": game.version, "your_turn": False}
    game = play_turn(game)
    assert client.get(urls(other)[0]).json()["version"] == game.version


def test_seeing_is_said_by_a_post_and_never_by_a_get(client):
    game = GameFactory()
    seat = game.seats.get(position=load_state(game).seat_to_move)
    version_url, seen_url = urls(seat)
    client.get(seat_path(seat))
    client.get(version_url)
    assert client.get(seen_url).status_code == 405
    seat.refresh_from_db()
    assert seat.seen_version == 0
    assert client.post(seen_url, {"version": game.version}).status_code == 204
    seat.refresh_from_db()
    assert seat.seen_version == game.version


def test_seen_never_goes_backwards_nor_beyond_the_game(client):
    game = play_turn(GameFactory())
    seat = game.seats.get(position=0)
    _, seen_url = urls(seat)
    client.post(seen_url, {"version": game.version})
    client.post(seen_url, {"version": game.version - 1})
    client.post(seen_url, {"version": game.version + 5})
    seat.refresh_from_db()
    assert seat.seen_version == game.version


@pytest.mark.parametrize("version", ["", "zero", "0", "-3"])
def test_a_bad_version_is_refused_with_the_reason(client, version):
    seat = GameFactory().seats.get(position=0)
    answer = client.post(urls(seat)[1], {"version": version})
    assert answer.status_code == 400
    assert "version" in answer.json()["errors"]
    seat.refresh_from_db()
    assert seat.seen_version == 0


def test_a_bad_link_reaches_neither(client):
    assert client.get(reverse("games:version", args=["nonsense"])).status_code == 404
    assert client.post(reverse("games:seen", args=["nonsense"]), {"version": 1}).status_code == 404


def test_the_board_page_carries_what_its_script_needs(client):
    game = GameFactory()
    seat = game.seats.get(position=0)
    page = client.get(seat_path(seat)).content.decode()
    assert f'data-version="{game.version}"' in page
    version_token = re.search(r'data-version-url="/s/([^/]+)/version/"', page)[1]
    seen_token = re.search(r'data-seen-url="/s/([^/]+)/seen/"', page)[1]
    assert seat_for_token(version_token) == seat == seat_for_token(seen_token)
    # A seat's token carries no time (helpers.signing): every link on the page is the same.
    assert version_token == seen_token == make_token(seat)
    assert "games/watch" in page


def test_the_browsers_time_zone_is_kept_for_a_player_without_an_account(client):
    from games.words.time_zones import zone_for

    game = GameFactory()
    seat = game.seats.get(position=0)
    _, seen_url = urls(seat)
    client.post(seen_url, {"version": game.version, "time_zone": "Mars/Olympus"})
    seat.refresh_from_db()
    assert seat.browser_time_zone == ""  # not a zone: ignored
    client.post(seen_url, {"version": game.version, "time_zone": "Asia/Tokyo"})
    seat.refresh_from_db()
    assert zone_for(seat).key == "Asia/Tokyo"
