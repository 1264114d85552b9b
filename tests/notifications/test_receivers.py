"""The game emails that moves cause, written with the move and sent after its commit."""

import re

import pytest
from django.core import mail
from django.db import transaction

from games.bots import greedy_move
from games.services import load_state, submit_move
from notifications.models import Message
from tests.conftest import play_turn, sent
from tests.factories import GameFactory, UserFactory

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.usefixtures("anymail_backend", "turn_emails_at_once"),
]


def test_starting_a_game_tells_the_first_player_it_is_their_turn(
    django_capture_on_commit_callbacks,
):
    with django_capture_on_commit_callbacks(execute=True):
        game = GameFactory()
    [email] = sent("your_turn")
    state = load_state(game)
    assert email.to == [f"seat{state.seat_to_move}@example.com"]
    assert email.subject == f"Your turn · {game.display_name}"
    for city in state.hands[state.seat_to_move]:
        assert city in email.body
    # Hidden information: nobody else's cities. A suggested start marker off any city is
    # placed from the nearest city ("1 west of Bismarck"): the board's, not a hand's.
    own = set(state.hands[state.seat_to_move])
    for position, hand in enumerate(state.hands):
        if position != state.seat_to_move:
            for city in set(hand) - own:
                landmark = rf"\d+ [a-z-]+ of {re.escape(city)}\b"
                assert city not in re.sub(landmark, "", email.body)


def test_a_move_tells_the_next_player_what_happened_and_never_the_mover(
    django_capture_on_commit_callbacks,
):
    game = GameFactory()
    mover = load_state(game).seat_to_move
    with django_capture_on_commit_callbacks(execute=True):
        game = play_turn(game)
    [email] = sent("your_turn")
    nxt = load_state(game).seat_to_move
    assert nxt != mover
    assert email.to == [f"seat{nxt}@example.com"]
    assert f"Player {mover} places their start marker" in email.body
    assert "/s/" in email.body
    assert not Message.objects.filter(
        kind="your_turn", to=f"seat{mover}@example.com", event=f"v{game.version}"
    ).exists()


def test_a_move_that_rolls_back_sends_nothing(django_capture_on_commit_callbacks):
    game = GameFactory()
    state = load_state(game)
    seat = game.seats.get(position=state.seat_to_move)
    move = greedy_move(state, seat.position)
    before = Message.objects.count()
    with (
        django_capture_on_commit_callbacks(execute=True),
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        submit_move(game, seat, move, game.version)
        raise RuntimeError("something after the move failed")
    assert Message.objects.count() == before
    assert sent("your_turn") == []


def test_players_who_chose_the_digest_get_no_turn_email(django_capture_on_commit_callbacks):
    game = GameFactory()
    nxt = game.seats.get(position=(load_state(game).seat_to_move + 1) % 3)
    nxt.user = UserFactory(email_mode="daily_digest")
    nxt.save()
    with django_capture_on_commit_callbacks(execute=True):
        play_turn(game)
    assert sent("your_turn") == []


def test_bots_get_no_email(django_capture_on_commit_callbacks):
    game = GameFactory()
    nxt = game.seats.get(position=(load_state(game).seat_to_move + 1) % 3)
    nxt.is_bot = True
    nxt.save()
    with django_capture_on_commit_callbacks(execute=True):
        play_turn(game)
    assert all(nxt.email not in m.to for m in mail.outbox)
    assert not Message.objects.filter(to=nxt.email).exists()


def play_until(game, done):
    for _ in range(2000):
        if done(game):
            return game
        game = play_turn(game)
    raise AssertionError("the game never got there")


def test_a_scored_round_reveals_every_hand_to_everyone(django_capture_on_commit_callbacks):
    game = GameFactory(seats=2)
    with django_capture_on_commit_callbacks(execute=True):
        game = play_until(game, lambda g: g.round > 1 or g.status == "finished")
    emails = sent("round_scored")
    assert sorted(m.to[0] for m in emails) == ["seat0@example.com", "seat1@example.com"]
    scored = next(e for e in reversed(game.engine_events()) if e["type"] == "round_started")
    first_round_hands = [
        e for e in game.engine_events() if e["type"] == "round_started" and e["round"] == 1
    ][0]["hands"]
    for email in emails:
        assert email.subject == f"Round 1 scored · {game.display_name}"
        for hand in first_round_hands:
            for city in hand:
                assert city in email.body
        # The next round's hands stay secret.
        if scored["round"] == 2:
            new_cities = (
                set(scored["hands"][0]) - set(first_round_hands[0]) - set(first_round_hands[1])
            )
            assert not any(f" {city}," in email.body for city in new_cities)


def test_the_end_of_the_game_sends_the_final_table_and_the_replay(
    django_capture_on_commit_callbacks,
):
    game = GameFactory(seats=2)
    with django_capture_on_commit_callbacks(execute=True):
        game = play_until(game, lambda g: g.status == "finished")
    emails = sent("game_over")
    assert len(emails) == 2
    assert "won" in emails[0].subject and game.display_name in emails[0].subject
    assert f"/games/{game.pk}/replay/" in emails[0].body
    # Every email of the game is in one thread.
    threads = {m.extra_headers["References"] for m in mail.outbox}
    assert len(threads) == 1
    assert threads.pop().startswith(f"<game-{game.thread_token}@")
