import random

import pytest

from games import rules
from games.bots import simulate

from .positions import TA_HAND_A, TA_HAND_B


@pytest.fixture(scope="module")
def game():
    return simulate("transamerica", 4, random.Random(11), rules.Options(exclusive_tracks=3))


def test_replay_rebuilds_the_finished_game(game):
    state = rules.replay(game)
    assert state.is_over
    assert state.version == len(game) == game[-1]["seq"]
    assert state.scores == game[-1]["scores"]


def test_replay_is_deterministic(game):
    a, b = rules.replay(game), rules.replay(game)
    assert (a.scores, a.winners, a.round, a.built) == (b.scores, b.winners, b.round, b.built)


def test_the_log_starts_with_game_created():
    with pytest.raises(rules.InvalidEvent, match="starts with a game_created"):
        rules.replay([{"type": "round_started", "round": 1}])
    with pytest.raises(rules.InvalidEvent, match="starts with a game_created"):
        rules.replay([])


def test_sequence_numbers_have_no_gaps(game):
    broken = [dict(e) for e in game[:5]]
    broken[3]["seq"] = 7
    with pytest.raises(rules.InvalidEvent, match="expected event 4 next, not 7") as error:
        rules.replay(broken)
    assert error.value.seq == 7


def test_a_wrong_round_score_is_named(game):
    index = next(i for i, e in enumerate(game) if e["type"] == "round_scored")
    broken = [dict(e) for e in game]
    broken[index]["losses"] = [loss + 1 for loss in broken[index]["losses"]]
    with pytest.raises(rules.InvalidEvent, match="round_scored: losses should be") as error:
        rules.replay(broken)
    assert error.value.seq == game[index]["seq"]


def test_an_illegal_track_in_the_log_is_named(game):
    index = next(i for i, e in enumerate(game) if e["type"] == "track_built")
    broken = [dict(e) for e in game]
    broken[index]["lines"] = [[[0, 0], [5, 5]]]
    with pytest.raises(rules.InvalidEvent, match=r"track_built: \(0,0\)-\(5,5\) is not a line"):
        rules.replay(broken)


def test_a_malformed_event_is_named(game):
    broken = [dict(e) for e in game[:4]]
    broken[3] = {"seq": 4, "type": "start_placed", "seat": "zero", "point": [1, 1]}
    with pytest.raises(rules.InvalidEvent, match="malformed start_placed"):
        rules.replay(broken)


def test_events_the_engine_does_not_know_pass_through(game):
    first = [dict(e) for e in game[:3]]
    noted = [*first, {"seq": 4, "type": "turn_timed_out", "seat": 0}]
    for event in game[3:10]:
        noted.append({**event, "seq": event["seq"] + 1})
    plain = rules.replay(game[:10])
    state = rules.replay(noted)
    assert state.version == plain.version + 1
    assert (state.built, state.starts, state.scores) == (plain.built, plain.starts, plain.scores)


def test_apply_leaves_its_argument_alone():
    state = rules.replay([rules.game_created("transamerica", 2)])
    after = rules.apply(state, rules.round_started(state, [TA_HAND_A, TA_HAND_B]))
    assert state.round == 0 and after.round == 1
    assert state.version == 1 and after.version == 2


def test_a_second_game_created_is_refused():
    event = rules.game_created("transamerica", 2)
    with pytest.raises(rules.InvalidEvent, match="already created"):
        rules.replay([event, event])


def test_game_ended_must_state_the_right_result(game):
    broken = [dict(e) for e in game]
    broken[-1]["winners"] = [3, 2]
    with pytest.raises(rules.InvalidEvent, match="the winners are seats"):
        rules.replay(broken)
