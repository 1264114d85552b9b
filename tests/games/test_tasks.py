"""The bot task (games.tasks): idempotent, and bounded with a worker."""

import pytest

from games import tasks
from games.models import Game, Seat
from games.services import SeatSpec, create_game, start_game

pytestmark = pytest.mark.django_db


def bots_only(seats: int = 2) -> Game:
    specs = [SeatSpec(f"Bot {n}", is_bot=True, bot_level="greedy") for n in range(seats)]
    return start_game(create_game("transamerica", None, specs))


def test_the_task_plays_the_bot_turns_due_until_a_person_is_to_move():
    specs = [SeatSpec(f"Bot {n}", is_bot=True, bot_level="strong") for n in range(2)]
    game = start_game(create_game("transamerica", None, [*specs, SeatSpec("Ada", "a@x.org")]))
    played = tasks.play_bot_turn.apply(args=(game.pk, game.version)).get()
    game.refresh_from_db()
    assert played == 2
    assert game.seat_to_move == 2
    assert list(game.events.filter(type="start_placed").values_list("data__seat", flat=True)) == [
        0,
        1,
    ]


def test_the_task_does_nothing_when_the_game_has_moved_on():
    game = bots_only()
    stale = game.version - 1
    assert tasks.play_bot_turn.apply(args=(game.pk, stale)).get() == 0
    assert Game.objects.get(pk=game.pk).version == game.version


def test_the_task_does_nothing_once_the_seat_is_no_longer_a_bots():
    game = bots_only()
    Seat.objects.filter(game=game).update(is_bot=False)
    assert tasks.play_bot_turn.apply(args=(game.pk, game.version)).get() == 0


def test_running_the_task_twice_plays_once():
    game = start_game(
        create_game(
            "transamerica",
            None,
            [SeatSpec("Bot", is_bot=True, bot_level="greedy"), SeatSpec("Ada", "a@example.com")],
        )
    )
    version = game.version
    assert tasks.play_bot_turn.apply(args=(game.pk, version)).get() == 1
    assert tasks.play_bot_turn.apply(args=(game.pk, version)).get() == 0
    assert Game.objects.get(pk=game.pk).version == version + 1


def test_the_task_does_nothing_for_a_game_that_is_gone():
    assert tasks.play_bot_turn.apply(args=(10**9, 1)).get() == 0
