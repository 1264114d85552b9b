"""The variants: coloured (exclusive) track, and the stricter connection rule."""

import pytest

from games import rules

from .positions import TA_HAND_A, TA_HAND_B, build, hand_tree, new_round, with_track

EXCLUSIVE = rules.Options(exclusive_tracks=3)


def placed(options=EXCLUSIVE, starts=((10, 6), (12, 6))):
    return new_round([TA_HAND_A, TA_HAND_B], options=options, starts=list(starts))


def test_options_are_recorded_in_the_first_event():
    event = rules.game_created("transeuropa", 4, rules.Options(3, True))
    assert event["options"] == {"exclusive_tracks": 3, "cities_must_join_start": True}
    state = rules.replay([event])
    assert state.options == rules.Options(exclusive_tracks=3, cities_must_join_start=True)


@pytest.mark.parametrize(
    "bad", [{"exclusive_tracks": -1}, {"exclusive_tracks": "3"}, {"cities_must_join_start": 1}]
)
def test_bad_options_are_refused(bad):
    with pytest.raises(ValueError):
        rules.Options.from_dict(bad)


def test_coloured_track_does_not_use_the_supply():
    state = build(placed(), 0, ((10, 6), (11, 6)), ((10, 6), (9, 6)), exclusive=[0])
    assert state.supply_left == 83
    assert state.exclusive_left == [2, 3]


def test_coloured_track_serves_only_its_owner():
    state = build(placed(), 0, ((10, 6), (11, 6)), exclusive=[0])
    # Seat 1 reaches Kansas City (11,6) from its own marker at (12,6) ...
    state = build(state, 1, ((12, 6), (11, 6)))
    state = build(state, 0, ((10, 6), (10, 7)))
    # ... but cannot cross seat 0's coloured line to build on at (10,6).
    with pytest.raises(rules.IllegalMove, match=r"\(10,6\)-\(9,6\) does not touch your network"):
        rules.decide(state, 1, rules.Build((((10, 6), (9, 6)),)))
    state = build(state, 1, ((11, 6), (11, 7)))
    # Seat 0 crosses its own coloured line and builds from the black one seat 1 laid.
    state = build(state, 0, ((12, 6), (13, 6)))
    assert state.tracks_built == 5


def test_an_opponents_coloured_line_cannot_be_crossed_when_scoring():
    state = placed(starts=((3, 1), (19, 12)))
    tree = hand_tree(state, TA_HAND_B)
    free = rules.missing_cost(with_track(state, tree, seat=1, exclusive=False), 0)
    blocked = rules.missing_cost(with_track(state, tree, seat=1, exclusive=True), 0)
    own = rules.missing_cost(with_track(state, tree, seat=0, exclusive=True), 0)
    assert free == own  # one's own coloured track is free, like black track
    assert blocked > free


def test_at_most_two_coloured_tracks_touch_a_point():
    state = build(placed(), 0, ((10, 6), (11, 6)), ((10, 6), (9, 6)), exclusive=[0, 1])
    state = build(state, 1, ((12, 6), (13, 6)))
    with pytest.raises(rules.IllegalMove, match=r"two coloured tracks already touch \(10,6\)"):
        rules.decide(state, 0, rules.Build((((10, 6), (10, 7)),), frozenset([0])))
    assert not rules.may_colour(state, 0, ((10, 6), (10, 7)))
    build(state, 0, ((10, 6), (10, 7)))  # a black line there is fine


def test_coloured_tracks_run_out():
    state = build(placed(), 0, ((10, 6), (11, 6)), ((10, 6), (9, 6)), exclusive=[0, 1])
    state = build(state, 1, ((12, 6), (13, 6)))
    state = build(state, 0, ((9, 6), (8, 6)), exclusive=[0])
    state = build(state, 1, ((13, 6), (14, 7)))
    with pytest.raises(rules.IllegalMove, match="0 of your 3 coloured tracks left"):
        rules.decide(state, 0, rules.Build((((8, 6), (7, 6)),), frozenset([0])))


def test_no_coloured_track_without_the_variant():
    state = placed(options=rules.Options())
    with pytest.raises(rules.IllegalMove, match="without coloured track"):
        rules.decide(state, 0, rules.Build((((10, 6), (11, 6)),), frozenset([0])))


def test_coloured_index_must_name_a_built_line():
    with pytest.raises(rules.IllegalMove, match="names a line not built"):
        rules.decide(placed(), 0, rules.Build((((10, 6), (11, 6)),), frozenset([1])))


def test_the_stricter_reading_needs_the_start_marker_joined():
    strict = rules.Options(cities_must_join_start=True)
    far = (16, 1)
    state = new_round([TA_HAND_A, TA_HAND_B], options=strict, starts=[far, (3, 1)])
    joined = with_track(state, hand_tree(state, TA_HAND_A), seat=1)
    assert not rules.cities_joined(joined, 0)
    assert rules.missing_cost(joined, 0) > 0
    loose = new_round([TA_HAND_A, TA_HAND_B], starts=[far, (3, 1)])
    assert rules.cities_joined(with_track(loose, hand_tree(loose, TA_HAND_A), seat=1), 0)
