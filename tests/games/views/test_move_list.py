"""The list of every move (the board page's, fetched through the seat link, and its own
page) and the replay's single steps (games.views.move_list)."""

import re

import pytest
from django.urls import reverse

from games.links import seat_path
from games.words.city_names import city_names
from tests.factories import running_game_in_round_2, simulated_game

pytestmark = pytest.mark.django_db


def token_of(seat) -> str:
    return seat_path(seat).split("/")[2]


def items(html: str) -> list[tuple[int, str, str]]:
    """(number, link, words) of each move in a list."""
    found = re.findall(r'<li value="(\d+)"><a href="([^"]+)"[^>]*>([^<]*)</a></li>', html)
    return [(int(seq), href, words) for seq, href, words in found]


def never_stored(response) -> bool:
    header = response["Cache-Control"]
    return "no-store" in header and "private" in header


def test_the_seat_move_list_names_every_move_each_a_link_to_the_seats_replay(client):
    game = running_game_in_round_2(names=["Ada", "Grace", "Alan"])
    seat = game.seats.get(position=0)
    token = token_of(seat)
    replay = reverse("games:seat_replay", args=[token])
    events = game.engine_events()
    for name in ("games:seat_moves", "games:seat_move_list"):
        response = client.get(reverse(name, args=[token]))
        assert response.status_code == 200
        assert never_stored(response)
        listed = items(response.content.decode())
        assert [seq for seq, _href, _words in listed] == list(range(1, len(events) + 1))
        assert all(href == f"{replay}?move={seq}" for seq, href, _words in listed)
        words = {seq: text for seq, _href, text in listed}
        assert words[1].startswith("The game is set up on the TransAmerica board")
        assert any(text.startswith("Round 2 begins") for text in words.values())
    # The fragment is the list alone; the page has the site around it and its way back.
    fragment = client.get(reverse("games:seat_move_list", args=[token])).content.decode()
    assert fragment.lstrip().startswith('<ol class="moves">') and "<html" not in fragment
    page = client.get(reverse("games:seat_moves", args=[token])).content.decode()
    assert f'href="{reverse("games:seat", args=[token])}"' in page and "<html" in page


def test_a_bad_seat_link_opens_no_list(client):
    for name in ("games:seat_moves", "games:seat_move_list", "games:seat_replay_frame"):
        response = client.get(reverse(name, args=["not-a-token"]))
        assert response.status_code == 404
        assert b'<li value="' not in response.content


def test_the_board_page_offers_the_list_through_the_seat_link(client):
    game = running_game_in_round_2()
    seat = game.seats.get(position=0)
    token = token_of(seat)
    page = client.get(reverse("games:seat", args=[token])).content.decode()
    assert f'data-list-url="{reverse("games:seat_move_list", args=[token])}"' in page
    # Without scripts: a link to the list's own page.
    assert f'href="{reverse("games:seat_moves", args=[token])}"' in page


def test_a_replay_step_is_just_what_changes(client):
    game = simulated_game(names=["Ada", "Grace", "Alan"])
    base = reverse("games:replay", args=[game.pk])
    frame = client.get(reverse("games:replay_frame", args=[game.pk]), {"move": 5})
    assert frame.status_code == 200
    step = frame.content.decode()
    page = client.get(base, {"move": 5}).content.decode()
    parts = re.findall(r'data-frame-part="(\w+)"', step)
    assert sorted(parts) == ["board", "event", "nav", "players"]
    # Each part as the whole page at that move shows it; the page's list is not sent.
    for part in ("nav", "event", "board", "players"):
        assert re.findall(rf'<\w+ [^>]*data-frame-part="{part}"', step) == re.findall(
            rf'<\w+ [^>]*data-frame-part="{part}"', page
        )
    assert re.search(r'id="event"[^>]*>([^<]+)<', step).group(1) == re.search(
        r'id="event"[^>]*>([^<]+)<', page
    ).group(1)
    assert f'href="{base}?move=4" data-key="ArrowLeft"' in step
    assert f'href="{base}?move=6" data-key="ArrowRight"' in step
    assert '<li value="' not in step and '<li value="' in page
    # The board's lines and crossing points are the same at every step: not sent again.
    assert re.search(r'<g class="lines">\s*</g>', step) and '<g class="lines">\n    <line' in page
    assert re.search(r'<g class="points">\s*</g>', step)
    assert f'data-frame-url="{base}frame/"' in page


def test_a_step_past_the_end_or_not_a_number_is_not_found(client):
    game = simulated_game()
    url = reverse("games:replay_frame", args=[game.pk])
    for move in (game.version + 1, 0, "x", ""):
        assert client.get(url, {"move": move}).status_code == 404


def test_a_running_games_step_is_the_seats_view_and_never_stored(client):
    game = running_game_in_round_2()
    # Not public while it runs.
    assert client.get(reverse("games:replay_frame", args=[game.pk]), {"move": 3}).status_code == 404
    hands = [e for e in game.engine_events() if e["type"] == "round_started"][-1]["hands"]
    for seat in game.seats.all():
        url = reverse("games:seat_replay_frame", args=[token_of(seat)])
        response = client.get(url, {"move": game.version})
        assert response.status_code == 200
        assert never_stored(response)
        players = response.content.decode().split('data-frame-part="players"')[1]
        for other, hand in enumerate(hands):
            shown = ", ".join(city_names(hand)) in players
            assert shown == (other == seat.position)
