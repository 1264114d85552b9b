"""Self-play: whole games between bots, and the bots by name."""

import random

from games import rules
from games.bots import BOTS, DEFAULT_BOT, easy_move, greedy_move, simulate, strong_move
from games.bots.simulate import Bot


def test_simulation_is_repeatable_from_its_seed():
    a = simulate("transamerica", 3, random.Random(9))
    b = simulate("transamerica", 3, random.Random(9))
    assert a == b
    assert rules.replay(a).is_over
    assert [event["seq"] for event in a] == list(range(1, len(a) + 1))


def test_each_seat_is_played_by_its_own_bot():
    moved: list[int] = []

    def watching(state, seat):
        moved.append(seat)
        return greedy_move(state, seat)

    simulate("transeuropa", 3, random.Random(1), None, [greedy_move, watching, greedy_move])
    assert moved and set(moved) == {1}


def test_bots_are_listed_by_name():
    assert {"easy": easy_move, "greedy": greedy_move, "strong": strong_move} == BOTS
    # Weakest first: the order a player chooses a level from.
    assert list(BOTS) == ["easy", "greedy", "strong"]
    assert DEFAULT_BOT in BOTS
    assert all(callable(bot) for bot in BOTS.values())
    assert Bot is not None
