import json
import random

from games import rules
from games.bots import simulate
from games.rules.state import BUILDING


def running_game():
    events = simulate("transamerica", 4, random.Random(3))
    # The middle of round 1.
    for i in range(len(events)):
        state = rules.replay(events[: i + 1])
        if state.phase == BUILDING and state.tracks_built >= 6:
            return state
    raise AssertionError("no running position")


def test_a_seat_sees_its_own_cities_and_no_one_elses():
    state = running_game()
    for viewer in range(4):
        view = rules.seat_view(state, viewer)
        text = json.dumps(view)
        assert view["hands"][viewer] == list(state.hands[viewer])
        for seat in range(4):
            if seat != viewer:
                assert view["hands"][seat] is None
                for city in state.hands[seat]:
                    if city not in state.hands[viewer]:
                        assert city not in text
        assert view["missing_cost"] == rules.missing_cost(state, viewer)


def test_an_onlooker_sees_no_hand_during_a_round():
    state = running_game()
    view = rules.seat_view(state, None)
    assert view["hands"] == [None] * 4
    assert "missing_cost" not in view


def test_hands_are_revealed_once_the_round_is_scored():
    events = simulate("transamerica", 4, random.Random(3))
    scored = next(i for i, e in enumerate(events) if e["type"] == "round_scored")
    state = rules.replay(events[: scored + 1])
    assert rules.hands_visible_to(state, None) == [list(hand) for hand in state.hands]


def test_the_view_lists_track_with_its_builder():
    state = running_game()
    view = rules.seat_view(state, 0)
    assert len(view["tracks"]) == state.tracks_built
    assert {t["seat"] for t in view["tracks"]} <= set(range(4))
    assert view["supply_left"] == 84 - state.tracks_built
