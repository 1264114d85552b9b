import json
import random

import pytest

from games import rules
from games.bots import simulate

NAMES = ["Ada", "Grace", "Edsger"]


@pytest.fixture(scope="module")
def finished():
    return simulate("transeuropa", 3, random.Random(4))


def test_a_finished_games_record(finished):
    record = rules.make_record(finished, NAMES)
    assert record["format"] == "pbem-game-record/1"
    assert record["board"] == "transeuropa"
    assert record["options"] == {"exclusive_tracks": 0, "cities_must_join_start": False}
    assert record["seats"] == [{"seat": i, "name": n} for i, n in enumerate(NAMES)]
    assert [e["seq"] for e in record["events"]] == list(range(1, len(finished) + 1))
    state = rules.replay(finished)
    assert record["result"] == {"scores": state.scores, "winners": state.winners}
    # It is JSON, and it replays to the same result.
    again = json.loads(json.dumps(record))
    assert rules.replay_record(again).scores == state.scores


def test_a_running_games_record_hides_other_hands(finished):
    # Cut the log in the middle of round 2.
    second = next(
        i for i, e in enumerate(finished) if e["type"] == "round_started" and e["round"] == 2
    )
    running = finished[: second + 5]
    record = rules.make_record(running, NAMES, viewer=1)
    assert "result" not in record
    round_two = record["events"][second]
    assert round_two["hands"][0] is None and round_two["hands"][2] is None
    assert round_two["hands"][1] == finished[second]["hands"][1]
    # Round 1 was scored: its hands are public.
    assert record["events"][1]["hands"] == finished[1]["hands"]
    for seat in (0, 2):
        for city in finished[second]["hands"][seat]:
            assert city not in json.dumps(round_two)
    # An onlooker sees no hand of the running round.
    assert rules.make_record(running, NAMES)["events"][second]["hands"] == [None] * 3


def test_a_record_without_our_first_event_is_read():
    record = {
        "format": "pbem-game-record/1",
        "board": "transamerica",
        "options": {"exclusive_tracks": 0, "cities_must_join_start": False},
        "seats": [{"seat": 0, "name": "Ada"}, {"seat": 1, "name": "Grace"}],
        "events": [
            {
                "seq": 1,
                "type": "round_started",
                "round": 1,
                "first_seat": 0,
                "hands": [
                    ["Los Angeles", "Dallas", "St. Louis", "Cincinnati", "Washington"],
                    ["Portland", "Helena", "Salt Lake City", "Phoenix", "New York"],
                ],
            },
            {"seq": 2, "type": "start_placed", "seat": 0, "point": [10, 6]},
            {"seq": 3, "type": "start_placed", "seat": 1, "point": [3, 1]},
            {"seq": 4, "type": "track_built", "seat": 0, "lines": [[[10, 6], [11, 6]]]},
            {"seq": 5, "type": "photo_taken", "by": "a reader that ignores it"},
        ],
    }
    events = rules.read_record(record)
    assert events[0]["type"] == "game_created" and events[0]["seq"] == 0
    state = rules.replay(events)
    assert state.version == 5
    assert state.seat_to_move == 1


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "pbem-game-record/9"}, "unknown format"),
        ({"board": "atlantis"}, "unknown board"),
        ({"events": []}, "a list of events"),
        ({"seats": [{"seat": 0, "name": "Solo"}]}, "2 to 6 players"),
    ],
)
def test_a_bad_record_is_refused(finished, change, message):
    record = {**rules.make_record(finished, NAMES), **change}
    with pytest.raises(rules.InvalidRecord, match=message):
        rules.replay_record(record)


def test_numbering_must_start_at_one(finished):
    record = rules.make_record(finished, NAMES)
    record["events"] = record["events"][1:]
    with pytest.raises(rules.InvalidRecord, match="numbered from 1"):
        rules.replay_record(record)


def test_a_wrong_result_is_named(finished):
    record = rules.make_record(finished, NAMES)
    record["result"] = {**record["result"], "winners": [9]}
    with pytest.raises(rules.InvalidEvent, match="result's winners should be"):
        rules.replay_record(record)


def test_a_record_with_hidden_hands_cannot_be_replayed(finished):
    running = finished[:10]
    record = rules.make_record(running, NAMES, viewer=0)
    with pytest.raises(rules.InvalidEvent, match="hand is hidden"):
        rules.replay_record(record)


def test_a_bare_game_ended_replays(finished):
    record = rules.make_record(finished, NAMES)
    record["events"][-1] = {"seq": len(finished), "type": "game_ended"}
    state = rules.replay_record(record)
    assert state.is_over and state.result_recorded
    assert record["result"] == {"scores": state.scores, "winners": state.winners}


@pytest.mark.parametrize("key", ["scores", "winners"])
def test_a_game_ended_key_that_is_present_must_agree(finished, key):
    record = rules.make_record(finished, NAMES)
    ended = record["events"][-1]
    ended[key] = [9, 9, 9] if key == "scores" else [2, 1]
    with pytest.raises(rules.InvalidEvent, match=rf"event {ended['seq']}: game_ended: the "):
        rules.replay_record(record)


def test_unknown_keys_and_a_partial_result_are_read(finished):
    record = rules.make_record(finished, NAMES)
    record["published_by"] = "another program"
    for event in record["events"]:
        event["note"] = "kept, and ignored"
    record["result"] = {"winners": record["result"]["winners"], "margin": 3}
    state = rules.replay_record(record)
    assert state.winners == record["result"]["winners"]
    record["result"]["winners"] = [0, 1, 2]
    with pytest.raises(rules.InvalidEvent, match="result's winners should be"):
        rules.replay_record(record)


def test_seat_names_come_in_play_order(finished):
    record = rules.make_record(finished, NAMES)
    assert rules.seat_names(record) == NAMES
    record["seats"][1] = {"seat": 1}
    assert rules.seat_names(record) == ["Ada", "Seat 1", "Edsger"]
    record["seats"].reverse()
    with pytest.raises(rules.InvalidRecord, match="play order from 0: seat 0 is not"):
        rules.seat_names(record)
