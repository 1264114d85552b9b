import random
from datetime import UTC, datetime, timedelta

from games import rules
from games.bots import greedy_move
from games.derived.projection import differences, project
from games.models import Event, Game, Seat

WHEN = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


def log_until(stop):
    """Events of a 2-seat game played greedily until ``stop(state)`` is true."""
    events = [rules.game_created("transamerica", 2, rules.Options())]
    state = rules.replay(events)
    rng = random.Random(7)  # a fixed deal keeps the test repeatable
    while not stop(state):
        if state.needs_deal:
            new = [rules.round_started(state, rules.deal("transamerica", 2, rng))]
        else:
            seat = state.seat_to_move
            new = rules.decide(state, seat, greedy_move(state, seat))
        for event in new:
            state = rules.apply(state, event)
        events.extend(new)
    return state, len(events)


# The table: people only (no bot plays a turn at once).
PEOPLE = [Seat(position=n, name=f"P{n}") for n in range(6)]


def last(seq):
    return Event(seq=seq, type="any", created_at=WHEN)


def test_a_game_waiting_for_its_first_deal_is_in_setup():
    state, count = log_until(lambda s: True)
    game = Game(board="transamerica", time_per_move=timedelta(hours=1))
    assert project(game, state, last(count), PEOPLE, clock=(), unwritten=()) == {
        "status": "setup",
        "round": 0,
        "seat_to_move": None,
        "deadline": None,
        "version": 1,
        "scores": state.scores,
        "finished_at": None,
    }


def test_an_active_game_has_a_deadline_only_with_a_time_per_move():
    state, count = log_until(lambda s: s.round == 1 and s.seat_to_move == 1)
    timed = Game(board="transamerica", time_per_move=timedelta(hours=36))
    fields = project(timed, state, last(count), PEOPLE, clock=(), unwritten=())
    assert fields["status"] == "active"
    assert fields["seat_to_move"] == 1
    assert fields["deadline"] == WHEN + timedelta(hours=36)
    assert (
        project(Game(board="transamerica"), state, last(count), PEOPLE, clock=(), unwritten=())[
            "deadline"
        ]
        is None
    )


def test_a_finished_game_has_no_one_to_move_and_no_deadline():
    state, count = log_until(lambda s: s.is_over)
    game = Game(board="transamerica", time_per_move=timedelta(hours=1))
    fields = project(game, state, last(count), PEOPLE, clock=(), unwritten=())
    assert fields["status"] == "finished"
    assert fields["seat_to_move"] is None
    assert fields["deadline"] is None
    assert fields["finished_at"] == WHEN
    assert fields["scores"] == state.scores
    assert fields["version"] == count


def test_differences_names_each_column_that_differs():
    game = Game(status="active", round=2, seat_to_move=1, version=9)
    expected = {"status": "active", "round": 3, "seat_to_move": None, "version": 9}
    assert differences(game, expected) == {"round": (2, 3), "seat_to_move": (1, None)}
