"""The published strategies the tournament seats: legal players, blind to others' hands."""

import random

import pytest

from games import rules
from games.bots import simulate, strong_move
from games.bots.published import PUBLISHED
from tests.games.bots.positions import positions


@pytest.mark.parametrize("name", sorted(PUBLISHED))
@pytest.mark.parametrize("board", rules.BOARD_NAMES)
def test_each_plays_whole_legal_games_against_the_strong_bot(name, board):
    bot = PUBLISHED[name]
    options = rules.Options(exclusive_tracks=3)
    events = simulate(board, 3, random.Random(6), options, [bot, strong_move, bot])
    assert rules.replay(events).is_over


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_each_plays_the_same_move_whatever_the_others_hold(name):
    bot = PUBLISHED[name]
    events = simulate("transamerica", 3, random.Random(9), None, [bot] * 3)
    rng = random.Random(3)
    checked = 0
    for state in positions(events, every=11):
        seat = state.seat_to_move
        mine = set(state.hands[seat])
        while True:
            hands = rules.deal("transamerica", 3, rng)
            if not mine & {c for hand in hands for c in hand}:
                break
        hands[seat] = list(state.hands[seat])
        other = state.copy()
        other.hands = [tuple(hand) for hand in hands]
        assert bot(other, seat) == bot(state, seat)
        checked += 1
    assert checked >= 5
