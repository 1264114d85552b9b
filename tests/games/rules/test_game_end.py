"""Scores, the game-end mark, the first seat moving on, and winners."""

import random

import pytest

from games import rules
from games.bots import simulate
from games.rules.state import AWAITING_DEAL, OVER, ROUND_OVER
from games.rules.turns import game_result, score_round


def after_rounds(board: str, seats: int, round_number: int, scores: list[int]):
    """A state at the end of round ``round_number`` (ROUND_OVER) with ``scores`` before it.

    Rounds are skipped by resetting the phase: only the scoring of the last one matters.
    """
    state = rules.replay([rules.game_created(board, seats)])
    for _ in range(round_number):
        state.phase = AWAITING_DEAL
        state = rules.apply(
            state, rules.round_started(state, rules.deal(board, seats, random.Random(1)))
        )
    state.scores = list(scores)
    state.phase = ROUND_OVER
    return state


def test_everyone_starts_with_13_points():
    for board in rules.BOARD_NAMES:
        state = rules.replay([rules.game_created(board, 3)])
        assert state.scores == [13, 13, 13]


def test_the_first_seat_moves_one_place_each_round():
    state = rules.replay([rules.game_created("transamerica", 3)])
    firsts = []
    for _ in range(4):
        event = rules.round_started(state, rules.deal("transamerica", 3, random.Random(2)))
        firsts.append(event["first_seat"])
        state = rules.apply(state, event)
        assert state.seat_to_move == event["first_seat"]
        state.phase = AWAITING_DEAL
    assert firsts == [0, 1, 2, 0]


def test_transamerica_mark_moves_after_round_two_when_the_lowest_score_is_four_or_more():
    state = after_rounds("transamerica", 2, 2, [9, 20])
    state.built = {}
    # With no track at all both lose their full cost; fix the scores so the lowest stays >= 4.
    losses = [rules.missing_cost(state, 0), rules.missing_cost(state, 1)]
    state.scores = [losses[0] + 7, losses[1] + 9]
    event = score_round(state)
    assert event["scores"] == [7, 9]
    assert event["game_ends_at_score"] == 4  # three below the lowest score, 7


def test_transamerica_mark_stays_when_the_lowest_score_is_below_four():
    state = after_rounds("transamerica", 2, 2, [0, 0])
    losses = [rules.missing_cost(state, 0), rules.missing_cost(state, 1)]
    state.scores = [losses[0] + 3, losses[1] + 9]
    event = score_round(state)
    assert event["scores"] == [3, 9]
    assert event["game_ends_at_score"] == 0


@pytest.mark.parametrize("round_number", [1, 3])
def test_transamerica_mark_moves_only_after_round_two(round_number):
    state = after_rounds("transamerica", 2, round_number, [0, 0])
    losses = [rules.missing_cost(state, 0), rules.missing_cost(state, 1)]
    state.scores = [losses[0] + 7, losses[1] + 9]
    assert score_round(state)["game_ends_at_score"] == 0


def test_transeuropa_mark_never_moves():
    state = after_rounds("transeuropa", 2, 2, [0, 0])
    losses = [rules.missing_cost(state, 0), rules.missing_cost(state, 1)]
    state.scores = [losses[0] + 7, losses[1] + 9]
    assert score_round(state)["game_ends_at_score"] == 1


@pytest.mark.parametrize(
    ("board", "final", "over"),
    [
        ("transamerica", [1, 5], False),
        ("transamerica", [0, 5], True),
        ("transamerica", [-3, 5], True),
        ("transeuropa", [2, 5], False),
        ("transeuropa", [1, 5], True),
    ],
)
def test_the_game_ends_when_a_score_reaches_the_mark(board, final, over):
    state = after_rounds(board, 2, 1, [0, 0])
    losses = [rules.missing_cost(state, 0), rules.missing_cost(state, 1)]
    state.scores = [f + loss for f, loss in zip(final, losses, strict=True)]
    scored = score_round(state)
    assert scored["scores"] == final
    state = rules.apply(state, scored)
    assert state.phase == (OVER if over else AWAITING_DEAL)
    assert state.is_over is over


def test_most_points_wins_and_ties_share():
    assert game_result([3, 9, 1]) == [1]
    assert game_result([9, 2, 9]) == [0, 2]


def test_a_finished_game_refuses_moves_and_deals():
    events = simulate("transamerica", 3, random.Random(5))
    state = rules.replay(events)
    assert state.is_over
    assert events[-1]["type"] == "game_ended"
    assert events[-1]["winners"] == state.winners
    with pytest.raises(rules.IllegalMove, match="the game is over"):
        rules.decide(state, 0, rules.PlaceStart((10, 6)))
    with pytest.raises(rules.IllegalMove):
        rules.round_started(state, rules.deal("transamerica", 3, random.Random(1)))
