import random

import pytest

from games import rules
from games.rules.state import BUILDING, PLACING

from .positions import TA_HAND_A, TA_HAND_B, TA_HAND_C, build, new_round, play

# Chicago (13,3) and Cincinnati (15,5) are cities; (10,6) is open country.
START_0 = (10, 6)
START_1 = (3, 1)  # Helena


def placed():
    return new_round([TA_HAND_A, TA_HAND_B], starts=[START_0, START_1])


def test_first_turns_place_start_markers_in_seat_order():
    state = new_round([TA_HAND_A, TA_HAND_B, TA_HAND_C])
    assert state.phase == PLACING
    assert state.seat_to_move == 0
    state = play(state, 0, rules.PlaceStart(START_0))
    assert state.seat_to_move == 1
    state = play(state, 1, rules.PlaceStart((17, 4)))  # New York: a city is allowed
    state = play(state, 2, rules.PlaceStart((0, 1)))
    assert state.phase == BUILDING
    assert state.seat_to_move == 0
    assert state.starts == [state.board.point_index[p] for p in (START_0, (17, 4), (0, 1))]


def test_two_markers_never_share_a_point():
    state = play(new_round([TA_HAND_A, TA_HAND_B]), 0, rules.PlaceStart(START_0))
    with pytest.raises(rules.IllegalMove, match=r"the point \(10,6\) already holds a start marker"):
        rules.decide(state, 1, rules.PlaceStart(START_0))


def test_a_marker_goes_on_a_crossing_point():
    with pytest.raises(rules.IllegalMove, match=r"\(30,30\) is not a crossing point"):
        rules.decide(new_round([TA_HAND_A, TA_HAND_B]), 0, rules.PlaceStart((30, 30)))


def test_no_track_before_the_marker():
    with pytest.raises(rules.IllegalMove, match="place your start marker before building"):
        rules.decide(new_round([TA_HAND_A, TA_HAND_B]), 0, rules.Build((((10, 6), (11, 6)),)))


def test_only_one_marker_per_round():
    with pytest.raises(rules.IllegalMove, match="already on the board"):
        rules.decide(placed(), 0, rules.PlaceStart((5, 5)))


def test_seats_move_in_turn():
    state = placed()
    with pytest.raises(rules.IllegalMove, match="not your turn: seat 0 moves"):
        rules.decide(state, 1, rules.Build((((3, 1), (3, 0)),)))
    with pytest.raises(rules.IllegalMove, match="no seat 5"):
        rules.decide(state, 5, rules.Build((((3, 1), (3, 0)),)))


def test_one_or_two_single_lines():
    state = build(placed(), 0, ((10, 6), (11, 6)))
    assert state.seat_to_move == 1
    state = build(state, 1, ((3, 1), (3, 0)), ((3, 1), (2, 0)))
    assert state.tracks_built == 3
    assert state.supply_left == 84 - 3
    assert state.seat_to_move == 0


def test_one_double_line_alone():
    state = build(placed(), 0, ((11, 6), (10, 6)))
    state = build(state, 1, ((3, 1), (4, 1)))  # a double line (cost 2)
    assert state.seat_to_move == 0
    with pytest.raises(rules.IllegalMove, match=r"\(11,6\)-\(11,5\) is a double line"):
        rules.decide(state, 0, rules.Build((((10, 6), (10, 5)), ((11, 6), (11, 5)))))


def test_at_least_one_and_at_most_two_lines():
    state = placed()
    with pytest.raises(rules.IllegalMove, match="at least one line"):
        rules.decide(state, 0, rules.Build(()))
    three = (((10, 6), (11, 6)), ((10, 6), (9, 6)), ((10, 6), (10, 7)))
    with pytest.raises(rules.IllegalMove, match="one or two lines"):
        rules.decide(state, 0, rules.Build(three))


def test_a_line_joins_neighbouring_points():
    with pytest.raises(rules.IllegalMove, match=r"\(10,6\)-\(12,6\) is not a line on this board"):
        rules.decide(placed(), 0, rules.Build((((10, 6), (12, 6)),)))


def test_the_same_line_twice_is_refused():
    line = ((10, 6), (11, 6))
    with pytest.raises(rules.IllegalMove, match="given twice"):
        rules.decide(placed(), 0, rules.Build((line, (line[1], line[0]))))


def test_a_built_line_cannot_be_built_again():
    state = build(placed(), 0, ((10, 6), (11, 6)))
    state = build(state, 1, ((3, 1), (3, 0)))
    with pytest.raises(rules.IllegalMove, match=r"\(11,6\)-\(10,6\) is already built"):
        rules.decide(state, 0, rules.Build((((11, 6), (10, 6)),)))


def test_a_line_must_touch_the_network():
    with pytest.raises(rules.IllegalMove, match=r"the line \(3,1\)-\(4,1\) does not touch"):
        rules.decide(placed(), 0, rules.Build((((3, 1), (4, 1)),)))


def test_the_second_line_may_extend_the_first():
    state = build(placed(), 0, ((10, 6), (11, 6)), ((11, 6), (12, 6)))
    assert state.tracks_built == 2


def test_the_second_line_may_be_elsewhere_on_the_network():
    state = build(placed(), 0, ((10, 6), (11, 6)), ((10, 6), (9, 6)))
    assert state.tracks_built == 2


def test_a_second_line_not_touching_the_network_is_refused_and_nothing_is_applied():
    state = placed()
    with pytest.raises(rules.IllegalMove, match=r"\(12,6\)-\(13,6\) does not touch"):
        rules.decide(state, 0, rules.Build((((10, 6), (11, 6)), ((12, 6), (13, 6)))))
    assert state.tracks_built == 0
    assert state.seat_to_move == 0


def test_networks_that_touch_become_one_that_both_build_from():
    state = new_round([TA_HAND_A, TA_HAND_B], starts=[(10, 6), (12, 6)])
    state = build(state, 0, ((10, 6), (11, 6)))
    # Seat 1 joins seat 0's network at (11,6) ...
    state = build(state, 1, ((12, 6), (11, 6)))
    # ... so seat 0 may now build from seat 1's marker, and seat 1 from seat 0's.
    state = build(state, 0, ((12, 6), (13, 6)))
    state = build(state, 1, ((10, 6), (9, 6)))
    assert state.tracks_built == 4


def test_a_network_reached_only_through_a_marker_point_is_joined():
    # Seat 0's line ends on seat 1's start marker: both networks now share that point.
    state = new_round([TA_HAND_A, TA_HAND_B], starts=[(10, 6), (11, 6)])
    state = build(state, 0, ((10, 6), (11, 6)))
    state = build(state, 1, ((10, 6), (9, 6)))
    assert state.tracks_built == 2


def test_decide_does_not_change_the_state():
    state = placed()
    events = rules.decide(state, 0, rules.Build((((10, 6), (11, 6)),)))
    assert events == [{"type": "track_built", "seat": 0, "lines": [[[10, 6], [11, 6]]]}]
    assert state.tracks_built == 0
    assert state.seat_to_move == 0


def test_legal_lines_are_the_free_lines_touching_the_network():
    state = placed()
    legal = rules.legal_lines(state, 0)
    assert sorted(map(sorted, legal)) == sorted(
        sorted(((10, 6), p)) for p in [(9, 5), (10, 5), (9, 6), (11, 6), (10, 7), (11, 7)]
    )
    state = build(state, 0, ((10, 6), (11, 6)))
    # Five more free lines at (10,6) and five at Kansas City (11,6), the built one shared.
    assert len(rules.legal_lines(state, 0)) == 5 + 5
    for line in rules.legal_lines(state, 1):
        assert (3, 1) in line


def test_legal_start_points_leave_out_markers():
    state = play(new_round([TA_HAND_A, TA_HAND_B]), 0, rules.PlaceStart(START_0))
    points = rules.legal_start_points(state)
    assert START_0 not in points
    assert len(points) == 187


def test_nothing_moves_between_rounds_or_after_the_game():
    state = rules.replay([rules.game_created("transamerica", 2)])
    with pytest.raises(rules.IllegalMove, match="next one is not dealt"):
        rules.decide(state, 0, rules.PlaceStart(START_0))


def test_a_pass_only_when_no_line_can_be_built():
    with pytest.raises(rules.IllegalMove, match="must build at least one line"):
        rules.decide(placed(), 0, rules.Pass())


@pytest.mark.parametrize(
    ("board", "seats", "options", "seed"),
    [
        ("transamerica", 3, rules.Options(), 1),
        ("transeuropa", 5, rules.Options(exclusive_tracks=3, cities_must_join_start=True), 2),
    ],
)
def test_play_gives_the_state_that_replaying_its_events_gives(board, seats, options, seed):
    # Whole games: moves that end rounds and the game, and coloured track.
    from games.bots import greedy_move

    rnd = random.Random(seed)
    state = rules.replay([{**rules.game_created(board, seats, options), "seq": 1}])
    rounds_ended = 0
    while not state.is_over:
        if state.needs_deal:
            deal = rules.round_started(state, rules.deal(board, seats, rnd))
            state = rules.apply(state, deal)
            continue
        seat = state.seat_to_move
        move = greedy_move(state, seat)
        events, played = rules.play(state, seat, move)
        assert events == rules.decide(state, seat, move)
        replayed = state
        for event in events:
            replayed = rules.apply(replayed, event)
        assert played == replayed
        rounds_ended += events[-1]["type"] in (rules.ROUND_SCORED, rules.GAME_ENDED)
        state = played
    assert rounds_ended >= 2 and state.result_recorded
