"""Property-based tests: random legal play, and random attempts at illegal lines."""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import rules
from games.rules.state import BUILDING, PLACING

SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def random_move(state, rnd: random.Random) -> rules.Move:
    """Any legal move, drawn at random (a second line may extend the first)."""
    seat = state.seat_to_move
    board = state.board
    if state.phase == PLACING:
        return rules.PlaceStart(rnd.choice(rules.legal_start_points(state)))
    legal = rules.legal_line_ids(state, seat)
    if not legal:
        return rules.Pass()
    first = rnd.choice(legal)
    coloured = rules.may_colour(state, seat, board.line_points(first)) and rnd.random() < 0.3
    exclusive = frozenset([0]) if coloured else frozenset()
    seconds = rules.legal_second_line_ids(state, seat, first, coloured)
    if not seconds or rnd.random() < 0.3:
        return rules.Build((board.line_points(first),), exclusive)
    lines = (board.line_points(first), board.line_points(rnd.choice(seconds)))
    return rules.Build(lines, exclusive)


def play_randomly(board, seats, options, seed, max_events=150):
    rnd = random.Random(seed)
    state = rules.replay([{**rules.game_created(board, seats, options), "seq": 1}])
    events = [{**rules.game_created(board, seats, options), "seq": 1}]
    while not state.is_over and len(events) < max_events:
        if state.needs_deal:
            new = [rules.round_started(state, rules.deal(board, seats, rnd))]
        else:
            # Every move drawn from the engine's legal lines is legal.
            new = rules.decide(state, state.seat_to_move, random_move(state, rnd))
        for event in new:
            event["seq"] = state.version + 1
            state = rules.apply(state, event)
            events.append(event)
    return state, events


def summary(state):
    return (
        state.version,
        state.round,
        state.phase,
        state.seat_to_move,
        state.scores,
        state.game_ends_at_score,
        state.hands,
        state.starts,
        state.built,
        state.supply_left,
        state.exclusive_left,
        state.winners,
    )


options_strategy = st.builds(
    rules.Options, exclusive_tracks=st.sampled_from([0, 3]), cities_must_join_start=st.booleans()
)


@SETTINGS
@given(
    board=st.sampled_from(rules.BOARD_NAMES),
    seats=st.integers(2, 6),
    options=options_strategy,
    seed=st.integers(0, 2**32),
)
def test_random_legal_play_always_replays_to_the_same_state(board, seats, options, seed):
    state, events = play_randomly(board, seats, options, seed)
    assert summary(rules.replay(events)) == summary(state)
    assert summary(rules.replay(events)) == summary(rules.replay(events))


@SETTINGS
@given(
    seats=st.integers(2, 4),
    seed=st.integers(0, 2**32),
    turns=st.integers(0, 40),
    attempt=st.data(),
)
def test_no_illegal_line_is_ever_accepted(seats, seed, turns, attempt):
    state, _events = play_randomly("transamerica", seats, rules.Options(), seed, max_events=turns)
    if state.phase != BUILDING:
        return
    seat = state.seat_to_move
    board = state.board
    point = attempt.draw(st.sampled_from(board.points))
    step = attempt.draw(
        st.sampled_from([(1, 0), (-1, 0), (0, 1), (1, 1), (0, -1), (-1, -1), (2, 0)])
    )
    line = (point, (point[0] + step[0], point[1] + step[1]))
    legal = {frozenset(legal_line) for legal_line in rules.legal_lines(state, seat)}
    try:
        events = rules.decide(state, seat, rules.Build((line,)))
    except rules.IllegalMove as error:
        assert frozenset(line) not in legal, error.message
        assert error.message
    else:
        assert frozenset(line) in legal
        assert events[0]["lines"] == [[list(line[0]), list(line[1])]]
