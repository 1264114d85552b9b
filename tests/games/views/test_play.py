from datetime import timedelta

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import links, rules
from games.bots import greedy_move
from games.forms import MoveForm
from games.links import rotate_link, seat_path
from games.services import load_state
from notifications.models import MailPreference, Message, Suppression
from tests.conftest import delivered, play_turn
from tests.factories import GameFactory, UserFactory, simulated_game

pytestmark = pytest.mark.django_db


def seat_to_move(game):
    return game.seats.get(position=game.seat_to_move)


def building_game():
    """A started game in which every start marker is placed."""
    game = GameFactory()
    for _ in range(3):
        game = play_turn(game)
    return game


def test_the_board_page_shows_the_game_and_changes_nothing(client):
    game = GameFactory()
    seat = seat_to_move(game)
    version = game.version
    response = client.get(seat_path(seat))
    assert response.status_code == 200
    assert b"<svg" in response.content
    assert b"Your turn" in response.content
    game.refresh_from_db()
    assert game.version == version


def test_placing_a_start_marker(client):
    game = GameFactory()
    seat = seat_to_move(game)
    state = load_state(game)
    point = state.board.point_index[rules.legal_start_points(state)[0]]
    path = seat_path(seat)
    response = client.post(path, {"version": game.version, "point": point})
    assert response.status_code == 302
    # Back to the link the move came through, which then says that the move is in.
    assert response["Location"] == path + "?moved"
    state = load_state(game)
    assert state.starts[seat.position] == point


def test_the_note_after_a_move_promises_an_email_only_when_one_will_come(client):
    game = GameFactory()
    seat = seat_to_move(game)
    state = load_state(game)
    point = state.board.point_index[rules.legal_start_points(state)[0]]
    Suppression.objects.create(address=seat.email, reason=Suppression.Reason.BOUNCED)
    page = client.post(seat_path(seat), {"version": game.version, "point": point}, follow=True)
    assert "Your move is in." in page.content.decode()
    assert "We will email you" not in page.content.decode()


def test_a_seat_without_an_address_is_promised_no_email(client):
    game = GameFactory()
    seat = seat_to_move(game)
    seat.email = ""  # a seat its creator gave no address: the player has only the link
    seat.save(update_fields=["email"])
    state = load_state(game)
    point = state.board.point_index[rules.legal_start_points(state)[0]]
    page = client.post(seat_path(seat), {"version": game.version, "point": point}, follow=True)
    assert "Your move is in." in page.content.decode()
    assert "We will email you" not in page.content.decode()


def test_the_page_a_move_led_to_says_nothing_of_it_once_the_turn_is_back(client):
    game = GameFactory()
    seat = seat_to_move(game)
    page = client.get(seat_path(seat) + "?moved").content.decode()
    assert "Your turn" in page
    assert "Your move is in" not in page


def test_every_page_with_the_hand_is_never_cached_and_a_moves_redirect_needs_no_headers(client):
    game = GameFactory()
    seat = seat_to_move(game)
    path = seat_path(seat)
    assert "no-store" in client.get(path)["Cache-Control"]
    refused = client.post(path, {"version": game.version})  # no crossing point chosen
    assert refused.status_code == 400
    assert "no-store" in refused["Cache-Control"]
    state = load_state(game)
    point = state.board.point_index[rules.legal_start_points(state)[0]]
    moved = client.post(path, {"version": game.version, "point": point})
    assert moved.status_code == 302
    assert "Cache-Control" not in moved


def test_a_move_through_a_fresh_link_leads_back_to_it_and_older_links_die(client):
    game = GameFactory()
    seat = seat_to_move(game)
    old = seat_path(seat)
    links.start_fresh_link(seat)
    fresh = links.fresh_seat_url(seat).removeprefix(settings.SITE_URL)
    state = load_state(game)
    point = state.board.point_index[rules.legal_start_points(state)[0]]
    response = client.post(fresh, {"version": game.version, "point": point})
    assert (response.status_code, response["Location"]) == (302, fresh + "?moved")
    assert client.get(fresh).status_code == 200
    assert client.get(old).status_code == 403


def test_building_one_line_with_the_second_left_empty(client):
    # What a browser sends: every field, the unused ones empty.
    game = building_game()
    seat = seat_to_move(game)
    state = load_state(game)
    line = rules.legal_line_ids(state, seat.position)[0]
    data = {"version": game.version, "point": "", "line1": line, "line2": ""}
    response = client.post(seat_path(seat), data)
    assert response.status_code == 302
    assert load_state(game).built[line].seat == seat.position


def test_building_two_lines(client):
    game = building_game()
    seat = seat_to_move(game)
    state = load_state(game)
    board = state.board
    first = next(i for i in rules.legal_line_ids(state, seat.position) if board.lines[i][2] == 1)
    after = rules.apply(
        state, {"type": "track_built", "seat": seat.position, "lines": [board.line_points(first)]}
    )
    second = next(i for i in rules.legal_line_ids(after, seat.position) if board.lines[i][2] == 1)
    response = client.post(
        seat_path(seat), {"version": game.version, "line1": first, "line2": second}
    )
    assert response.status_code == 302
    built = load_state(game).built
    assert built[first].seat == built[second].seat == seat.position


def test_an_illegal_move_shows_the_engines_message_and_keeps_the_picks(client):
    game = building_game()
    seat = seat_to_move(game)
    state = load_state(game)
    board = state.board
    form = MoveForm(state=state, seat=seat.position)
    reach = set(rules.network(state, seat.position))
    singles = [i for i in form.first_line_ids if board.lines[i][2] == 1]
    # A second line the form offers (it touches another legal line's far end) that
    # touches neither the network nor the first line: the engine refuses it.
    line1, far = next(
        (line1, i)
        for line1 in singles
        for i in form.second_line_ids
        if not set(board.lines[i][:2]) & (reach | set(board.lines[line1][:2]))
    )
    version = game.version
    response = client.post(seat_path(seat), {"version": version, "line1": line1, "line2": far})
    assert response.status_code == 422
    assert b"does not touch your network" in response.content
    assert f'<option value="{far}" selected>'.encode() in response.content
    assert f'<option value="{line1}" selected>'.encode() in response.content
    game.refresh_from_db()
    assert game.version == version


def test_a_stale_version_says_the_game_has_moved_on(client):
    game = GameFactory()
    seat = seat_to_move(game)
    state = load_state(game)
    point = state.board.point_index[rules.legal_start_points(state)[0]]
    response = client.post(seat_path(seat), {"version": game.version - 1, "point": point})
    assert response.status_code == 409
    assert b"The game has moved on" in response.content
    assert load_state(game).starts[seat.position] is None


def test_a_move_without_a_version_is_refused(client):
    game = GameFactory()
    seat = seat_to_move(game)
    state = load_state(game)
    point = state.board.point_index[rules.legal_start_points(state)[0]]
    response = client.post(seat_path(seat), {"point": point})
    assert response.status_code == 400
    assert load_state(game).starts[seat.position] is None


def test_a_move_out_of_turn_is_refused(client):
    game = GameFactory()
    other = game.seats.exclude(position=game.seat_to_move).first()
    response = client.post(seat_path(other), {"version": game.version, "point": 0})
    assert response.status_code == 400
    assert b"not your turn" in response.content
    assert load_state(game).starts[other.position] is None


def test_a_move_needs_a_csrf_token(client):
    from django.test import Client

    csrf_client = Client(enforce_csrf_checks=True)
    game = GameFactory()
    seat = seat_to_move(game)
    response = csrf_client.post(seat_path(seat), {"version": game.version, "point": 0})
    assert response.status_code == 403
    assert load_state(game).starts[seat.position] is None


def test_a_tampered_link_gets_a_clear_404(client):
    seat = GameFactory().seats.first()
    response = client.get(seat_path(seat).replace("/s/", "/s/x"))
    assert response.status_code == 404
    assert b"This link does not open a game" in response.content


def test_a_revoked_link_gets_a_403_with_a_way_to_a_fresh_link(client):
    seat = GameFactory().seats.first()
    old = seat_path(seat)
    rotate_link(seat)
    response = client.get(old)
    assert response.status_code == 403
    assert b"Send me a fresh link" in response.content


def test_the_board_page_links_the_seats_history_and_record(client):
    game = GameFactory()
    seat = seat_to_move(game)
    token = seat_path(seat).rstrip("/").rsplit("/", 1)[-1]
    response = client.get(seat_path(seat))
    assert f'href="/s/{token}/history/"'.encode() in response.content
    assert f'href="/s/{token}/record.json"'.encode() in response.content
    assert client.get(f"/s/{token}/history/").status_code == 200


def test_a_seat_played_by_a_bot_is_offered_back(client):
    game = GameFactory()
    seat = seat_to_move(game)
    response = client.get(seat_path(seat))
    assert b"Take my seat back" not in response.content
    seat.autopilot = True
    seat.save(update_fields=["autopilot"])
    response = client.get(seat_path(seat))
    assert b"A bot is playing this seat" in response.content
    assert b"Take my seat back" in response.content


def test_the_tab_title_says_when_it_is_your_turn(client):
    from games.links import seat_path as path_of
    from games.services import load_state as state_of
    from tests.factories import GameFactory as Factory

    game = Factory()
    to_move = game.seats.get(position=state_of(game).seat_to_move)
    other = game.seats.exclude(pk=to_move.pk).first()
    assert (
        f"<title>Your turn · {game.display_name}" in client.get(path_of(to_move)).content.decode()
    )
    assert "<title>Your turn" not in client.get(path_of(other)).content.decode()


def test_the_board_page_tells_every_move_since_my_last_turn():
    from django.test import Client

    game = GameFactory()
    me = game.seats.get(position=load_state(game).seat_to_move)
    game = play_turn(play_turn(game))  # me, then the next player
    game = play_turn(game)  # and the one after: now me again (three seats)
    page = Client().get(seat_path(me)).content.decode()
    assert "Since your last turn" in page
    log = page.split('class="move-log">')[1].split("</ol>")[0]
    assert log.count("<li>") == 2
    assert "places their start marker" in log


def test_after_a_move_the_page_says_we_will_email_and_where_to_play_next(client, monkeypatch):
    from tests.factories import UserFactory
    from tests.signing_clock import move_signing_clock

    ada = UserFactory(email="ada@example.org")
    first, second = GameFactory(), GameFactory()
    for game in (first, second):
        game.seats.filter(position=load_state(game).seat_to_move).update(user=ada, email=ada.email)
    seat = first.seats.get(user=ada)
    state = load_state(first)
    from games.bots import greedy_move

    move = greedy_move(state, seat.position)
    data = {"version": first.version, "point": state.board.point_index[move.point]}
    page = client.post(seat_path(seat), data, follow=True).content.decode()
    assert "We will email you when it is your turn again." in page
    assert "Next game waiting for your move" in page
    move_signing_clock(monkeypatch, 1)  # the link expected is made a second after the page
    assert seat_path(second.seats.get(user=ada)) in page


def test_the_invitation_page_spells_the_board_and_says_the_time_in_words(client):
    from datetime import timedelta

    game = GameFactory(started=False, time_per_move=timedelta(days=2))
    seat = game.seats.get(position=1)
    page = client.get(seat_path(seat)).content.decode()
    assert "to play TransAmerica as" in page
    assert "Time per move: 2\xa0days." in page


def test_without_javascript_the_second_step_offers_only_what_may_follow(client):
    import re

    from games import rules as engine

    game = GameFactory()
    for _ in range(3):  # every start marker placed
        game = play_turn(game)
    state = load_state(game)
    seat = game.seats.get(position=state.seat_to_move)
    first = next(
        i for i in rules.legal_line_ids(state, seat.position) if state.board.lines[i][2] == 1
    )
    page = client.post(
        seat_path(seat), {"version": game.version, "line1": first, "step": "second"}
    ).content.decode()
    offered = {
        int(v)
        for v in re.findall(
            r'<option value="(\d+)"', page.split('name="line2"')[1].split("</select>")[0]
        )
    }
    assert offered == set(engine.legal_second_line_ids(state, seat.position, first))
    assert 'Cost so far: <strong id="pick-cost">1</strong> of 2' in page
    second = sorted(offered)[0]
    done = client.post(seat_path(seat), {"version": game.version, "line1": first, "line2": second})
    assert done.status_code == 302
    bad = client.post(
        seat_path(seat), {"version": game.version + 1, "line1": 99999, "step": "second"}
    )
    assert bad.status_code in (400, 409)


def test_a_new_round_first_shows_the_round_that_ended_with_every_hand(client):
    from tests.factories import second_round_events, simulated_game

    game = simulated_game(until=second_round_events(moves=0))  # round 2 just dealt
    state = load_state(game)
    seat = game.seats.get(position=state.seat_to_move)
    page = client.get(seat_path(seat)).content.decode()
    assert "Round 1 is over" in page and "Go on to round 2" in page
    summary = page.split('id="round-summary"')[1].split("</details>")[0]
    for hand in state.last_scoring["hands"]:
        for city in hand:
            assert city in summary
    # Once they have moved in the new round, it is gone.
    game = play_turn(game)
    assert "Round 1 is over" not in client.get(seat_path(seat)).content.decode()


@pytest.mark.parametrize("choice", ["none", "stopped turn emails", "digest", "bounced"])
def test_a_move_reads_its_table_once_and_its_email_asks_the_readers_choice_when_sent(
    client, choice
):
    # The board page's one read holds every seat: the write path uses it rather than
    # asking again; whether the next player wants their email is asked on delivery.
    game = building_game()
    seat = seat_to_move(game)
    state = load_state(game)
    move = greedy_move(state, seat.position)
    after = rules.apply(state, rules.decide(state, seat.position, move)[0])
    following = game.seats.get(position=after.seat_to_move)
    if choice == "stopped turn emails":
        MailPreference.objects.create(address=following.email, stopped_kinds=["your_turn"])
    elif choice == "digest":
        MailPreference.objects.create(address=following.email, digest=True)
    elif choice == "bounced":
        Suppression.objects.create(address=following.email, reason=Suppression.Reason.BOUNCED)
    data = {"version": game.version, "line1": state.board.line_id(move.lines[0])}
    with CaptureQueriesContext(connection) as queries:
        response = client.post(seat_path(seat), data)
    assert response.status_code == 302
    reads = [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith("SELECT")]
    assert len(reads) == 1, reads
    [turn] = Message.objects.filter(seat=following, kind="your_turn", event=f"v{game.version + 1}")
    assert turn.status == Message.Status.PENDING
    expected = {
        "none": Message.Status.SENT,
        "stopped turn emails": Message.Status.SUPPRESSED,
        "digest": Message.Status.DROPPED,
        "bounced": Message.Status.SUPPRESSED,
    }
    assert delivered(turn).status == expected[choice]


def test_a_board_page_asks_only_for_its_table_and_why_mail_is_stopped(client, settings):
    # Rendered afresh (no page cache): the plan panel's quiet hours, the consent panel's
    # agreements and the table's people come from the snapshot and the table read, why
    # mail is stopped and the game's creator (the channels panel) are read with the table,
    # and the channel queries only run for a seat or game that has channels.
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    creator = UserFactory()
    game = simulated_game(
        seats=4, seed=2, until=90, time_per_move=timedelta(days=1), created_by=creator
    )
    seat = seat_to_move(game)
    client.get(seat_path(seat))  # the snapshot is kept in the process, as a server keeps it
    with CaptureQueriesContext(connection) as queries:
        assert client.get(seat_path(seat)).status_code == 200
    assert len(queries) == 1, [q["sql"][:80] for q in queries]
