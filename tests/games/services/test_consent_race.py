"""A take-back against the next player's move, really at once (each thread on its own
PostgreSQL connection): exactly one of them is recorded."""

import threading
from datetime import timedelta

import pytest
from django.db import connection

from games import rules
from games.bots import greedy_move
from games.models import Game
from games.services import (
    GameMovedOn,
    SeatSpec,
    consent,
    create_game,
    load_state,
    start_game,
    submit_move,
)

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

PEOPLE = [SeatSpec("Ada", "ada@example.com"), SeatSpec("Bo", "bo@example.com")]


def race(game_pk: int, taker: int, mover: int, version: int) -> dict[str, str]:
    barrier = threading.Barrier(2)
    outcomes = {}

    def take_back() -> None:
        try:
            seat = Game.objects.get(pk=game_pk).seats.get(position=taker)
            barrier.wait(timeout=10)
            consent.take_back(seat)
            outcomes["take back"] = "won"
        except consent.Refused:
            outcomes["take back"] = "refused"
        except Exception as exc:
            outcomes["take back"] = repr(exc)
        finally:
            connection.close()

    def move() -> None:
        try:
            game = Game.objects.get(pk=game_pk)
            seat = game.seats.get(position=mover)
            state = load_state(game)
            barrier.wait(timeout=10)
            submit_move(game, seat, greedy_move(state, mover), version)
            outcomes["move"] = "won"
        except GameMovedOn:
            outcomes["move"] = "moved on"
        except Exception as exc:
            outcomes["move"] = repr(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=take_back), threading.Thread(target=move)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return outcomes


def test_a_take_back_against_the_next_players_move_lets_exactly_one_through():
    options = rules.Options(take_backs=True)
    winners = set()
    for _ in range(6):
        game = start_game(create_game("transamerica", options, PEOPLE, None, timedelta(days=1)))
        state = load_state(game)
        first = state.seat_to_move
        mover = game.seats.get(position=first)
        game = submit_move(game, mover, greedy_move(state, first), game.version)
        version = game.version
        outcomes = race(game.pk, first, 1 - first, version)
        assert sorted(outcomes.values()) in (["moved on", "won"], ["refused", "won"]), outcomes
        winners.add(next(name for name, outcome in outcomes.items() if outcome == "won"))
        game = Game.objects.get(pk=game.pk)
        assert game.version == version + 1
        last = game.events.get(seq=version + 1)
        if outcomes["take back"] == "won":
            assert last.type == rules.TURN_TAKEN_BACK and game.seat_to_move == first
        else:
            assert last.type == rules.START_PLACED and last.data["seat"] == 1 - first
        assert rules.replay(game.engine_events()) == load_state(game)
    assert winners  # which one wins is the database's choice
