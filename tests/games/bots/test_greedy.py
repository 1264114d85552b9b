"""The greedy bot: quick whole games, its start, its way towards its cities."""

import random

import pytest

from games import rules
from games.bots import simulate
from games.bots.greedy import choose_start, greedy_move


@pytest.mark.parametrize("board", rules.BOARD_NAMES)
@pytest.mark.parametrize("seats", [2, 6])
def test_greedy_bots_play_whole_legal_games(board, seats):
    events = simulate(board, seats, random.Random(seats), rules.Options(exclusive_tracks=3))
    state = rules.replay(events)  # every event is checked again on replay
    assert state.is_over
    assert state.winners
    assert any(e.get("exclusive") for e in events)  # the bots use coloured track


def dealt(seed: int) -> rules.GameState:
    state = rules.replay([rules.game_created("transamerica", 2)])
    return rules.apply(
        state, rules.round_started(state, rules.deal("transamerica", 2, random.Random(seed)))
    )


def test_greedy_starts_on_one_of_its_cities():
    state = dealt(1)
    start = choose_start(state, 0)
    assert start in {state.board.city_point(name) for name in state.hands[0]}


def test_greedy_builds_towards_its_cities():
    state = dealt(1)
    for seat in (0, 1):
        for event in rules.decide(state, seat, greedy_move(state, seat)):
            state = rules.apply(state, event)
    before = rules.missing_cost(state, 0)
    for event in rules.decide(state, 0, greedy_move(state, 0)):
        state = rules.apply(state, event)
    assert rules.missing_cost(state, 0) < before
