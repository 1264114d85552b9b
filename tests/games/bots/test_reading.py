import random

import pytest

from games import rules
from games.bots.reading import sample_tables, weigh_hands
from games.bots.strong import own_view
from tests.games.bots.positions import one_round_of_greedy_play


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_greedy_players_real_hand_explains_everything_it_did(seed):
    """Greedy starts on its most central city and heads for its nearest one: its real
    hand is always among the hands weighed, and none weighs more."""
    checked = 0
    for state in one_round_of_greedy_play(seed)[::3]:
        seat = state.seat_to_move
        view = own_view(state, seat)
        for other in range(state.seat_count):
            if other == seat:
                continue
            hands, weights = weigh_hands(view, seat, other, random.Random(0))
            real = tuple(sorted(state.board.city_point(name) for name in state.hands[other]))
            weight = {tuple(sorted(hand)): w for hand, w in zip(hands, weights, strict=True)}
            assert weight[real] == max(weights) == 1.0
            checked += 1
    assert checked > 20


def test_guesses_get_better_as_the_others_build():
    """Late in a round, far more of the guessed cities are the real ones than early on,
    and far more than by chance (about 1.7 of 5 with the start city known)."""

    def hits(state) -> float:
        seat = state.seat_to_move
        view = own_view(state, seat)
        tables = sample_tables(view, seat, random.Random(0), 20)
        found = 0
        for table in tables:
            for other in range(state.seat_count):
                if other != seat:
                    real = {state.board.city_point(name) for name in state.hands[other]}
                    found += len(real & set(table[other]))
        return found / (len(tables) * (state.seat_count - 1))

    early, late = [], []
    for seed in (4, 5, 6):
        states = one_round_of_greedy_play(seed)
        early.append(hits(states[0]))
        late.append(hits(states[-1]))
    assert sum(late) / 3 > 3.0
    assert sum(late) / 3 > sum(early) / 3 + 0.8


def test_tables_hold_the_seats_own_cities_and_one_city_per_colour_for_the_others():
    state = one_round_of_greedy_play(7)[10]
    seat = state.seat_to_move
    board = state.board
    view = own_view(state, seat)
    for table in sample_tables(view, seat, random.Random(1), 30):
        assert table[seat] == [board.city_point(name) for name in state.hands[seat]]
        every = [point for hand in table for point in hand]
        assert len(every) == len(set(every)) == 5 * state.seat_count
        for hand in table:
            assert sorted(board.city_at[p].colour for p in hand) == sorted(rules.COLOURS)
