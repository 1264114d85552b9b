"""Real concurrent submissions, each thread on its own database connection."""

import threading

import pytest
from django.db import connection

from games import rules
from games.bots import greedy_move
from games.models import Game
from games.services import GameMovedOn, load_state, submit_move
from tests.factories import GameFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

THREADS = 4


def race(game_pk: int, seat_position: int, moves: list, expected_version: int) -> list[str]:
    """Submit one move per thread, all at once; return each thread's outcome."""
    barrier = threading.Barrier(len(moves))
    outcomes = [""] * len(moves)

    def submit(n: int) -> None:
        try:
            game = Game.objects.get(pk=game_pk)
            seat = game.seats.get(position=seat_position)
            barrier.wait(timeout=10)
            submit_move(game, seat, moves[n], expected_version)
            outcomes[n] = "won"
        except GameMovedOn:
            outcomes[n] = "moved on"
        except Exception as exc:  # reported by the callers' assertions
            outcomes[n] = repr(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=submit, args=(n,)) for n in range(len(moves))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return outcomes


def test_racing_submissions_for_one_turn_let_exactly_one_through():
    game = GameFactory()
    for _ in range(6):  # the three start markers, then track
        state = load_state(game)
        seat = state.seat_to_move
        version = game.version
        outcomes = race(game.pk, seat, [greedy_move(state, seat)] * THREADS, version)

        assert sorted(outcomes) == ["moved on"] * (THREADS - 1) + ["won"]
        game = Game.objects.get(pk=game.pk)
        assert game.version == version + 1
        assert list(game.events.values_list("seq", flat=True)) == list(range(1, version + 2))
        assert load_state(game).seat_to_move == (seat + 1) % 3


def test_different_moves_for_the_same_turn_record_only_the_winner():
    game = GameFactory()
    points = rules.legal_start_points(load_state(game))[:THREADS]
    moves = [rules.PlaceStart(point) for point in points]

    outcomes = race(game.pk, 0, moves, game.version)

    assert sorted(outcomes) == ["moved on"] * (THREADS - 1) + ["won"]
    placed = Game.objects.get(pk=game.pk).events.get(seq=3)
    assert placed.type == "start_placed"
    assert tuple(placed.data["point"]) == tuple(points[outcomes.index("won")])
