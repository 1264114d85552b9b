import json
import re

import pytest
from django.urls import reverse

from games import rules
from games.links import rotate_link, seat_path
from games.pages import finished_games
from games.views import history as history_views
from tests.conftest import play_turn
from tests.factories import GameFactory, UserFactory, running_game_in_round_2, simulated_game

pytestmark = pytest.mark.django_db


def replay_path(game, move=None):
    path = reverse("games:replay", args=[game.pk])
    return path if move is None else f"{path}?move={move}"


def seat_history_path(seat):
    return seat_path(seat) + "history/"


def hands_of_round(game, round_number):
    events = game.engine_events()
    return next(e["hands"] for e in events if e.get("round") == round_number)


class TestHistoryList:
    def test_lists_finished_games_with_board_players_winner_and_rounds(self, client):
        game = simulated_game(names=["Ada", "Grace", "Alan"])
        GameFactory()  # running: not listed
        response = client.get(reverse("games:history"))
        assert response.status_code == 200
        row = finished_games.summarize(game)
        assert response.context["rows"] == [row]
        body = response.content.decode()
        assert replay_path(game) in body
        assert "TransAmerica" in body
        for player in row.players:
            assert f"{player['name']}</strong> ({player['score']})" in body or (
                f"{player['name']} ({player['score']})" in body
            )
        assert f'<td data-label="Rounds">{game.round}</td>' in body

    def test_paging(self, client, monkeypatch):
        monkeypatch.setattr(history_views, "GAMES_PER_PAGE", 2)
        games = [simulated_game(seed=n) for n in range(3)]
        first = client.get(reverse("games:history"))
        assert [r.game for r in first.context["rows"]] == games[:0:-1]
        assert b'rel="next" href="?page=2"' in first.content
        second = client.get(reverse("games:history"), {"page": 2})
        assert [r.game for r in second.context["rows"]] == [games[0]]
        assert b'rel="prev" href="?page=1"' in second.content
        # A page past the end or not a number shows the nearest page, not an error.
        assert client.get(reverse("games:history"), {"page": 99}).context["page"].number == 2
        assert client.get(reverse("games:history"), {"page": "x"}).context["page"].number == 1

    def test_filter_by_player_keeps_the_filter_when_paging(self, client, monkeypatch):
        monkeypatch.setattr(history_views, "GAMES_PER_PAGE", 1)
        ada = [simulated_game(names=["Ada", "Bob", "Cy"], seed=n) for n in range(2)]
        simulated_game(names=["Dee", "Eve", "Flo"], seed=5)
        response = client.get(reverse("games:history"), {"player": "ada"})
        assert [r.game for r in response.context["rows"]] == [ada[1]]
        assert b'href="?player=ada&amp;page=2"' in response.content
        response = client.get(reverse("games:history"), {"player": "nobody"})
        assert response.context["rows"] == []
        assert "No finished game has a player called “nobody”" in response.content.decode()

    def test_no_finished_games(self, client):
        response = client.get(reverse("games:history"))
        assert response.status_code == 200
        assert b"No game has finished yet" in response.content


class TestReplayPage:
    def test_a_finished_game_is_public_and_every_kind_of_move_renders(self, client):
        game = simulated_game(seats=2)
        # The first event of each type, and the last (every frame's state is
        # checked in tests/games/test_replay_page.py).
        firsts = {}
        for event in game.engine_events():
            firsts.setdefault(event["type"], event["seq"])
        for move in sorted({*firsts.values(), game.version}):
            response = client.get(replay_path(game, move))
            assert response.status_code == 200
            assert response.context["frame"].seq == move
            assert b"<svg" in response.content
        body = response.content.decode()
        # Everyone's cities of every round, in the scoring tables.
        for event in game.engine_events():
            if event["type"] == "round_started":
                for hand in event["hands"]:
                    for city in hand:
                        assert city in body

    def test_navigation_links_work_without_script(self, client):
        game = simulated_game()
        base = replay_path(game)
        body = client.get(replay_path(game, 5)).content.decode()
        assert f'href="{base}?move=1" data-key="Home" rel="first"' in body
        assert f'href="{base}?move=4" data-key="ArrowLeft" rel="prev"' in body
        assert f'href="{base}?move=6" data-key="ArrowRight" rel="next"' in body
        assert f'href="{base}?move={game.version}" data-key="End" rel="last"' in body
        assert f'href="{base}?move=5" rel="bookmark"' in body
        assert "games/replay.js" in body

    def test_without_a_move_it_shows_the_last(self, client):
        game = simulated_game()
        response = client.get(replay_path(game))
        assert response.context["frame"].seq == game.version
        assert b'rel="next"' not in response.content

    @pytest.mark.parametrize("move", ["0", "abc", "100000", "-3"])
    def test_a_bad_move_number_says_so_and_shows_the_latest(self, client, move):
        game = simulated_game()
        response = client.get(replay_path(game, move))
        assert response.status_code == 404
        assert f"this game has moves 1 to {game.version}" in response.content.decode()
        assert response.context["frame"].seq == game.version

    def test_an_unknown_game_is_404(self, client):
        assert client.get(reverse("games:replay", args=[999_999])).status_code == 404

    def test_a_running_game_is_404_for_visitors_and_other_users(self, client):
        game = GameFactory()
        assert client.get(replay_path(game)).status_code == 404
        client.force_login(UserFactory())
        assert client.get(replay_path(game)).status_code == 404
        assert client.get(reverse("games:record", args=[game.pk])).status_code == 404

    def test_a_player_sees_their_own_hand_and_no_other(self, client):
        game = running_game_in_round_2()
        user = UserFactory()
        game.seats.filter(position=1).update(user=user)
        client.force_login(user)
        response = client.get(replay_path(game))
        assert response.status_code == 200
        body = response.content.decode()
        hands = hands_of_round(game, 2)
        mine = set(hands[1])
        others = {city for seat in (0, 2) for city in hands[seat]} - mine
        for city in mine:
            assert city in body
        # Every city is named on the board drawing; no other hand may be listed as one.
        seats = response.context["frame"].seats
        assert [s["hand"] for s in seats] == [None, hands[1], None]
        assert all(city not in str(seats) for city in others)
        # Round 1 was scored: its table shows everyone's cities.
        table = response.context["scored_rounds"][0]
        assert [row.cities for row in table.rows] == hands_of_round(game, 1)

    def test_a_seat_link_opens_its_games_replay(self, client):
        game = running_game_in_round_2()
        seat = game.seats.get(position=2)
        board = seat_path(seat)
        response = client.get(board + "history/")
        assert response.status_code == 200
        assert [s["hand"] for s in response.context["frame"].seats] == [
            None,
            None,
            hands_of_round(game, 2)[2],
        ]
        body = response.content.decode()
        # Its navigation stays under the seat link, and it links back to the board.
        assert f'href="{board}history/?move=1"' in body
        assert f'href="{board}"' in body
        assert f'href="{board}record.json"' in body

    def test_a_revoked_or_forged_seat_link_gets_the_bad_link_page(self, client):
        game = GameFactory()
        seat = game.seats.get(position=0)
        old = seat_history_path(seat)
        rotate_link(seat)
        response = client.get(old)
        assert response.status_code == 403
        assert b"Send me a fresh link" in response.content
        assert client.get("/s/forged-token/history/").status_code == 404
        assert client.get(seat_history_path(seat)).status_code == 200

    def test_the_replay_changes_nothing(self, client):
        game = play_turn(GameFactory())
        version = game.version
        client.get(seat_history_path(game.seats.get(position=0)))
        game.refresh_from_db()
        assert game.version == version


class TestRecordDownload:
    def test_a_finished_games_record_is_an_attachment_that_replays(self, client):
        game = simulated_game(names=["Ada", "Grace", "Alan"])
        response = client.get(reverse("games:record", args=[game.pk]))
        assert response.status_code == 200
        assert response["Content-Type"].startswith("application/json")
        assert response["Content-Disposition"] == (
            f'attachment; filename="railmail-game-{game.pk}.json"'
        )
        record = json.loads(response.content)
        assert record["format"] == "pbem-game-record/1"
        assert [s["name"] for s in record["seats"]] == ["Ada", "Grace", "Alan"]
        state = rules.replay_record(record)
        assert state.is_over and record["result"]["scores"] == game.scores

    def test_a_players_record_of_a_running_game_hides_the_other_hands(self, client):
        game = running_game_in_round_2()
        seat = game.seats.get(position=0)
        response = client.get(seat_path(seat) + "record.json")
        assert response.status_code == 200
        assert "no-store" in response["Cache-Control"]
        record = json.loads(response.content)
        assert "result" not in record
        current = [e for e in record["events"] if e["type"] == "round_started"][-1]
        assert current["hands"][0] == hands_of_round(game, 2)[0]
        assert current["hands"][1:] == [None, None]
        # A record with hidden hands is what it is: a reader still gets its shape.
        assert rules.read_record(record)[0]["type"] == "game_created"

    def test_a_signed_in_player_downloads_as_their_seat(self, client):
        game = running_game_in_round_2()
        user = UserFactory()
        game.seats.filter(position=2).update(user=user)
        client.force_login(user)
        record = json.loads(client.get(reverse("games:record", args=[game.pk])).content)
        current = [e for e in record["events"] if e["type"] == "round_started"][-1]
        assert current["hands"][:2] == [None, None] and current["hands"][2]


def test_the_replay_lists_every_move_in_words_each_a_link_to_it(client):
    game = simulated_game(names=["Ada", "Grace", "Alan"])
    events = game.engine_events()
    page = client.get(replay_path(game, move=5)).content.decode()
    items = re.findall(r'<li value="(\d+)"><a href="([^"]+)"( aria-current="step")?>', page)
    assert [int(seq) for seq, _href, _now in items] == list(range(1, len(events) + 1))
    assert all(href.endswith(f"?move={seq}") for seq, href, _now in items)
    assert [seq for seq, _href, now in items if now] == ["5"]
    placed = next(e for e in events if e["type"] == rules.START_PLACED)
    assert f"{game.seat_names()[placed['seat']]} places" in page


def test_a_running_games_move_list_hides_the_cities_the_seat_may_not_see(client):
    game = running_game_in_round_2()
    seat = game.seats.get(position=0)
    page = client.get(seat_history_path(seat)).content.decode()
    moves = page[
        page.index('id="moves-title"') : page.index("</ol>", page.index('id="moves-title"'))
    ]
    # The deal of round 2 is told without anybody's cities (moves name places on the
    # board, which everyone sees).
    start = moves.index("Round 2 begins")
    dealt = moves[start : moves.index("</li>", start)]
    assert not any(city in dealt for hand in hands_of_round(game, 2) for city in hand)
