"""Consent at the table in the rules (games.rules.consent): take-backs and ending early."""

import random

import pytest

from games import rules
from games.bots import simulate

ALLOWED = rules.Options(take_backs=True)
COLOURED = rules.Options(take_backs=True, exclusive_tracks=3)


def log(options=ALLOWED, seed=3, players=3) -> list[dict]:
    """A whole game between greedy bots (with seq)."""
    return simulate("transamerica", players, random.Random(seed), options)


def same_position(a: rules.GameState, b: rules.GameState) -> bool:
    """Equal but for the version and what the state remembers of the last move."""
    a, b = a.copy(), b.copy()
    a.version = b.version = 0
    a.last_move = b.last_move = None
    return a == b


def moves_of_round_1(events):
    first_scoring = next(n for n, e in enumerate(events) if e["type"] == "round_scored")
    return [n for n, e in enumerate(events[:first_scoring]) if e["type"] in rules.MOVE_EVENTS]


@pytest.mark.parametrize("options", [ALLOWED, COLOURED])
def test_a_take_back_restores_the_position_before_each_kind_of_move(options):
    events = log(options)
    checked = set()
    for n in moves_of_round_1(events)[:-1]:  # the round's last move ended it
        before = rules.replay(events[:n])
        after = rules.replay(events[: n + 1])
        seat = events[n]["seat"]
        taken, state = rules.take_back(after, seat)
        assert taken == [{"type": "turn_taken_back", "seat": seat}]
        assert same_position(state, before)
        assert state.seat_to_move == seat
        # Replay agrees with the state the take-back gave.
        replayed = rules.replay([*events[: n + 1], {**taken[0], "seq": n + 2}])
        assert replayed == state
        checked.add(events[n]["type"])
    assert {"start_placed", "track_built"} <= checked


def test_coloured_track_taken_back_returns_to_its_owner():
    events = log(COLOURED, seed=5)
    coloured = [n for n in moves_of_round_1(events)[:-1] if events[n].get("exclusive")]
    if not coloured:
        pytest.skip("the seeded game used no coloured track in round 1")
    n = coloured[0]
    after = rules.replay(events[: n + 1])
    seat = events[n]["seat"]
    _taken, state = rules.take_back(after, seat)
    assert state.exclusive_left[seat] == after.exclusive_left[seat] + len(events[n]["exclusive"])


def test_only_the_last_mover_may_take_back_and_only_once():
    events = log()
    n = moves_of_round_1(events)[4]
    after = rules.replay(events[: n + 1])
    mover = events[n]["seat"]
    other = after.seat_to_move
    with pytest.raises(rules.IllegalMove, match="only the player who moved last") as refused:
        rules.take_back(after, other)
    assert refused.value.rule == "not_your_last_move"
    _taken, state = rules.take_back(after, mover)
    with pytest.raises(rules.IllegalMove) as again:
        rules.take_back(state, mover)
    assert again.value.rule == "nothing_to_take_back"


def test_no_take_back_where_the_game_does_not_allow_it():
    events = log(rules.Options())
    n = moves_of_round_1(events)[2]
    after = rules.replay(events[: n + 1])
    with pytest.raises(rules.IllegalMove) as refused:
        rules.take_back(after, events[n]["seat"])
    assert refused.value.rule == "no_take_backs"


def test_a_move_that_ended_a_round_cannot_be_taken_back():
    events = log()
    started = [n for n, e in enumerate(events) if e["type"] == "round_started"]
    state = rules.replay(events[: started[1] + 1])  # round 2 dealt, nobody moved yet
    ender = events[started[1] - 2]["seat"]  # the move before round_scored
    with pytest.raises(rules.IllegalMove) as refused:
        rules.take_back(state, ender)
    assert refused.value.rule == "round_ended"


def test_a_take_back_in_a_log_is_checked_on_replay():
    events = log()
    n = moves_of_round_1(events)[4]
    wrong = {"type": "turn_taken_back", "seat": rules.replay(events[: n + 1]).seat_to_move}
    with pytest.raises(rules.InvalidEvent, match="turn_taken_back"):
        rules.replay([*events[: n + 1], {**wrong, "seq": n + 2}])


def test_the_option_is_left_out_of_records_of_games_without_it():
    assert "take_backs" not in rules.Options().to_dict()
    assert rules.Options(take_backs=True).to_dict()["take_backs"] is True
    assert rules.Options.from_dict({"take_backs": True}).take_backs
    with pytest.raises(ValueError):
        rules.Options(take_backs="yes")


def test_ending_early_keeps_the_scores_of_the_last_scored_round_and_ties_share():
    events = log()
    started = [n for n, e in enumerate(events) if e["type"] == "round_started"]
    mid_round_2 = rules.replay(events[: started[1] + 5])
    [ended], state = rules.end_early(mid_round_2)
    scored = rules.replay(events[: started[1]])  # round 1 scored, round 2 not dealt
    assert ended["reason"] == "agreed"
    assert ended["scores"] == scored.scores == state.scores
    best = max(scored.scores)
    assert ended["winners"] == [s for s, v in enumerate(scored.scores) if v == best]
    assert state.is_over and state.result_recorded
    assert rules.replay([*events[: started[1] + 5], {**ended, "seq": started[1] + 6}]) == state


def test_ending_early_in_the_first_round_is_a_tie_of_everyone():
    events = log()
    state = rules.replay(events[:6])
    [ended], after = rules.end_early(state)
    assert ended["winners"] == [0, 1, 2]
    with pytest.raises(rules.IllegalMove):
        rules.end_early(after)


def test_moves_since_last_turn_leaves_out_a_move_taken_back():
    events = log()
    n = moves_of_round_1(events)[4]
    mover = events[n]["seat"]
    back = {"type": "turn_taken_back", "seat": mover}
    watcher = next(s for s in range(3) if s != mover and s != events[n - 1]["seat"])
    with_it = rules.moves_since_last_turn(events[: n + 1], watcher)
    without = rules.moves_since_last_turn([*events[: n + 1], back], watcher)
    assert with_it[-1] == events[n] and events[n] not in without
    assert without == with_it[:-1]


def test_the_record_leaves_out_a_turn_taken_back_and_the_take_back():
    events = log()
    n = moves_of_round_1(events)[4]
    mover = events[n]["seat"]
    [back], _state = rules.take_back(rules.replay(events[: n + 1]), mover)
    # The log: the move, taken back, then the game as the bots played it (the same move).
    logged = [*events[: n + 1], {**back, "seq": n + 2}]
    logged += [{**e, "seq": e["seq"] + 2} for e in events[n:]]
    logged[n + 2]["seq"] = n + 3
    assert [e["seq"] for e in logged] == list(range(1, len(logged) + 1))
    record = rules.make_record(logged, ["A", "B", "C"])
    assert "turn_taken_back" not in {e["type"] for e in record["events"]}
    assert record["events"] == rules.make_record(events, ["A", "B", "C"])["events"]
    assert rules.replay_record(record).scores == rules.replay(logged).scores
