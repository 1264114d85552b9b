"""A plan's step and a hand move for the same turn, at once, each on its own database
connection: exactly one move is recorded."""

import threading

import pytest
from django.db import connection

from games import rules, tasks
from games.bots import greedy_move
from games.models import Game, PlanTurn, Seat
from games.services import GameMovedOn, load_state, plans, submit_move
from tests.factories import GameFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def race(game_pk: int, owner_pk: int, hand: rules.Move, version: int) -> list[str]:
    """The owner's plan and their hand move for the turn at ``version``, at once."""
    barrier = threading.Barrier(2)
    outcomes = ["", ""]

    def by_plan() -> None:
        try:
            game, owner = Game.objects.get(pk=game_pk), Seat.objects.get(pk=owner_pk)
            barrier.wait(timeout=10)
            played = plans.play_turn(game, owner, version)
            outcomes[0] = "won" if played is not None else "moved on"
        except Exception as exc:  # reported by the caller's assertions
            outcomes[0] = repr(exc)
        finally:
            connection.close()

    def by_hand() -> None:
        try:
            game, owner = Game.objects.get(pk=game_pk), Seat.objects.get(pk=owner_pk)
            barrier.wait(timeout=10)
            submit_move(game, owner, hand, version)
            outcomes[1] = "won"
        except GameMovedOn:
            outcomes[1] = "moved on"
        except Exception as exc:
            outcomes[1] = repr(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=by_plan), threading.Thread(target=by_hand)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return outcomes


def test_a_plan_step_and_a_hand_move_for_one_turn_give_exactly_one_move(monkeypatch):
    # The plan's own task is not run: the two writers race for the turn instead.
    monkeypatch.setattr(tasks.play_bot_turn, "delay", lambda *args, **kwargs: None)
    game = GameFactory()
    for _turn in range(3):  # start markers by hand
        state = load_state(game)
        seat = game.seats.get(position=state.seat_to_move)
        game = submit_move(game, seat, greedy_move(state, seat.position), game.version)
    for _race in range(4):
        game = Game.objects.get(pk=game.pk)
        state = load_state(game)
        position, version = state.seat_to_move, game.version
        owner = game.seats.get(position=position)
        plans.set_plan(owner, rules.plans.ALL)
        outcomes = race(game.pk, owner.pk, greedy_move(state, position), version)
        assert sorted(outcomes) == ["moved on", "won"], outcomes
        game = Game.objects.get(pk=game.pk)
        moves = game.events.filter(seq__gt=version, type__in=rules.MOVE_EVENTS)
        assert moves.filter(data__seat=position).count() == 1
        planned = PlanTurn.objects.filter(game=game, seq=version + 1).exists()
        assert planned == (outcomes[0] == "won")
        plans.cancel_plan(owner)
