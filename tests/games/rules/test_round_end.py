"""When a round ends: joined cities, the first-line exception, the track supply."""

import pytest

from games import rules
from games.rules.state import AWAITING_DEAL, BUILDING

from .positions import (
    TA_HAND_A,
    TA_HAND_B,
    build,
    cheapest_path,
    hand_tree,
    new_round,
    with_track,
)


def is_flat(state, line):
    return state.board.lines[state.board.line_id(line)][2] == 1


def nearly_joined(seat_joined: int, mover_start=(10, 6), other_start=(3, 1)):
    """Seat ``seat_joined``'s cities all joined but for one flat line that touches seat 0's
    network; seat 0 is to move. Returns (state, missing line)."""
    starts = [mover_start, other_start]
    state = new_round([TA_HAND_A, TA_HAND_B], starts=starts)
    hand = [TA_HAND_A, TA_HAND_B][seat_joined]
    tree = hand_tree(state, hand)
    missing = [line for line in tree if is_flat(state, line)][-1]
    state = with_track(state, [line for line in tree if line != missing], seat=1)
    # Bring seat 0's network to one end of the missing line.
    path = cheapest_path(state, mover_start, missing[0])
    state = with_track(state, [ln for ln in path if state.board.line_id(ln) not in state.built])
    assert state.phase == BUILDING and state.seat_to_move == 0
    return state, missing


def test_a_round_ends_as_soon_as_a_players_cities_are_joined():
    state, missing = nearly_joined(seat_joined=0)
    events = rules.decide(state, 0, rules.Build((missing,)))
    assert [e["type"] for e in events] == ["track_built", "round_scored"]
    assert events[1]["connected"] == [0]
    assert events[1]["losses"][0] == 0
    assert events[1]["losses"][1] > 0
    state = rules.apply(rules.apply(state, events[0]), events[1])
    assert state.phase == AWAITING_DEAL
    assert state.needs_deal


def test_a_line_that_joins_the_movers_own_cities_ends_the_turn_there():
    state, missing = nearly_joined(seat_joined=0)
    extra = next(ln for ln in rules.legal_lines(state, 0) if ln != missing and is_flat(state, ln))
    with pytest.raises(rules.IllegalMove, match="joined your cities and ended the round"):
        rules.decide(state, 0, rules.Build((missing, extra)))


def test_a_line_joining_only_an_opponents_cities_lets_the_mover_build_a_second():
    state, missing = nearly_joined(seat_joined=1)
    second = next(ln for ln in rules.legal_lines(state, 0) if ln != missing and is_flat(state, ln))
    events = rules.decide(state, 0, rules.Build((missing, second)))
    assert [e["type"] for e in events] == ["track_built", "round_scored"]
    assert len(events[0]["lines"]) == 2
    assert events[1]["connected"] == [1]


def test_the_round_ends_on_an_opponents_cities_even_on_one_line():
    state, missing = nearly_joined(seat_joined=1)
    events = rules.decide(state, 0, rules.Build((missing,)))
    assert events[1]["connected"] == [1]
    assert events[1]["losses"][1] == 0


def test_a_round_ends_when_the_supply_is_used_up():
    state = new_round([TA_HAND_A, TA_HAND_B], starts=[(10, 6), (3, 1)])
    # Fill the board far from anyone's network until one track is left.
    board = state.board
    filler = [
        board.line_points(i)
        for i, (a, b, _cost) in enumerate(board.lines)
        if board.points[a][1] >= 9 and board.points[b][1] >= 9
    ][:83]
    assert len(filler) == 83
    state = with_track(state, filler, seat=1)
    assert state.supply_left == 1
    with pytest.raises(rules.IllegalMove, match="used the last track of the supply"):
        rules.decide(state, 0, rules.Build((((10, 6), (11, 6)), ((10, 6), (9, 6)))))
    events = rules.decide(state, 0, rules.Build((((10, 6), (11, 6)),)))
    assert [e["type"] for e in events[:2]] == ["track_built", "round_scored"]
    assert events[1]["connected"] == []
    assert all(loss > 0 for loss in events[1]["losses"])


def test_every_line_uses_one_track_whatever_it_costs():
    state = new_round([TA_HAND_A, TA_HAND_B], starts=[(10, 6), (3, 1)])
    state = build(state, 0, ((10, 6), (11, 6)))
    state = build(state, 1, ((3, 1), (4, 1)))  # double line
    assert state.supply_left == 84 - 2


def test_several_players_joined_at_once_all_lose_nothing():
    # Both hands joined by one network of cheapest paths, but for one flat line that
    # every path from Los Angeles to the rest crosses.
    state = new_round([TA_HAND_A, TA_HAND_B], starts=[(5, 9), (3, 1)])  # (5,9): Los Angeles
    tree = hand_tree(state, TA_HAND_A + TA_HAND_B)
    for missing in tree:
        if not is_flat(state, missing):
            continue
        cut = with_track(state, [line for line in tree if line != missing])
        touches = rules.network(cut, 0) & {cut.board.point_index[p] for p in missing}
        if touches and not rules.cities_joined(cut, 0) and not rules.cities_joined(cut, 1):
            break
    else:
        pytest.fail("no line joins both hands")
    events = rules.decide(cut, 0, rules.Build((missing,)))
    assert events[1]["connected"] == [0, 1]
    assert events[1]["losses"] == [0, 0]
    assert events[1]["scores"] == [13, 13]
