import random

import pytest

from games import rules
from games.rules.boards import COLOURS

from .positions import TA_HAND_A, TA_HAND_B, new_round


@pytest.mark.parametrize("board", rules.BOARD_NAMES)
@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_deal_gives_one_city_of_each_colour_and_none_twice(board, seats):
    the_board = rules.get_board(board)
    for seed in range(20):
        hands = rules.deal(board, seats, random.Random(seed))
        assert len(hands) == seats
        names = [name for hand in hands for name in hand]
        assert len(set(names)) == len(names) == 5 * seats
        for hand in hands:
            assert sorted(the_board.city_by_name[n].colour for n in hand) == sorted(COLOURS)
        dashed = [n for n in names if the_board.city_by_name[n].dashed]
        if seats <= 3:
            assert dashed == []


def test_deal_depends_only_on_the_random_source():
    assert rules.deal("transeuropa", 4, random.Random(3)) == rules.deal(
        "transeuropa", 4, random.Random(3)
    )


@pytest.mark.parametrize("seats", [1, 7, "4"])
def test_two_to_six_players(seats):
    with pytest.raises(ValueError, match="2 to 6 players"):
        rules.deal("transamerica", seats, random.Random(1))


def test_round_started_records_the_deal_and_the_first_seat():
    state = rules.replay([rules.game_created("transamerica", 2)])
    event = rules.round_started(state, [TA_HAND_A, TA_HAND_B])
    assert event == {
        "type": "round_started",
        "round": 1,
        "first_seat": 0,
        "hands": [TA_HAND_A, TA_HAND_B],
    }


@pytest.mark.parametrize(
    ("hands", "message"),
    [
        ([TA_HAND_A], "one hand for each of 2 seats"),
        ([TA_HAND_A, TA_HAND_A], "Los Angeles is dealt twice"),
        ([TA_HAND_A, ["Portland", "Helena", "Omaha", "Phoenix"]], "must hold 5 cities"),
        ([TA_HAND_A, ["Portland", "Helena", "Omaha", "Phoenix", "Gotham"]], "'Gotham' is not"),
        (
            [TA_HAND_A, ["Portland", "Helena", "Omaha", "Houston", "New York"]],
            "Houston is left out of games of 2 players",
        ),
        (
            [TA_HAND_A, ["Portland", "Helena", "Omaha", "Santa Fe", "New York"]],
            "one city of each colour",
        ),
    ],
)
def test_a_bad_deal_is_refused(hands, message):
    state = rules.replay([rules.game_created("transamerica", 2)])
    with pytest.raises(rules.IllegalMove, match=message):
        rules.round_started(state, hands)


def test_no_deal_in_the_middle_of_a_round():
    state = new_round([TA_HAND_A, TA_HAND_B])
    with pytest.raises(rules.IllegalMove, match="only after the last one scored"):
        rules.round_started(state, [TA_HAND_A, TA_HAND_B])
