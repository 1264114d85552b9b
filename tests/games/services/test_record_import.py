"""games.services.record_import: a game record becomes a game, through the write path."""

import json
import random

import pytest

from games import rules, services
from games.bots import greedy_move, simulate
from games.models import Game
from games.services import record_import

pytestmark = pytest.mark.django_db

NAMES = ["Ada", "Grace", "Alan"]


def finished_events(seed: int = 3, board: str = "transamerica") -> list[dict]:
    return simulate(board, 3, random.Random(seed))


def as_json(record: dict) -> dict:
    return json.loads(json.dumps(record))


def running_record(events: list[dict]) -> dict:
    """A running game's record with every hand shown (as another program may write it)."""
    record = rules.make_record(events, NAMES)
    record["events"] = [dict(event) for event in events]
    return as_json(record)


def first_of_round(events: list[dict], number: int) -> int:
    return next(
        i
        for i, event in enumerate(events)
        if event["type"] == rules.ROUND_STARTED and event["round"] == number
    )


def test_a_finished_game_comes_back_whole():
    events = finished_events()
    record = as_json(rules.make_record(events, NAMES))
    game = record_import.import_record(record, {0: "ada@example.com"})
    assert game.status == Game.Status.FINISHED
    assert game.engine_events() == record["events"]
    assert game.scores == record["result"]["scores"]
    seats = list(game.seats.order_by("position"))
    assert [(s.name, s.email) for s in seats] == [
        ("Ada", "ada@example.com"),
        ("Grace", ""),
        ("Alan", ""),
    ]
    assert not any(seat.is_bot for seat in seats)


def test_a_running_game_goes_on_where_the_record_stops():
    events = finished_events()
    cut = first_of_round(events, 2) + 5
    game = record_import.import_record(running_record(events[:cut]))
    state = services.load_state(game)
    assert game.status == Game.Status.ACTIVE and game.version == cut
    assert state.round == 2 and game.seat_to_move == state.seat_to_move
    seat = game.seats.get(position=state.seat_to_move)
    moved = services.submit_move(game, seat, greedy_move(state, seat.position), game.version)
    assert moved.version == cut + 1


def test_a_game_between_rounds_is_dealt_its_next_round():
    events = finished_events()
    cut = first_of_round(events, 2)  # round 1 is scored, round 2 not dealt
    game = record_import.import_record(running_record(events[:cut]))
    log = game.engine_events()
    assert log[:cut] == events[:cut]
    assert log[cut]["type"] == rules.ROUND_STARTED and log[cut]["round"] == 2
    assert game.version == cut + 1


def test_hidden_hands_are_refused_and_nothing_is_created():
    events = finished_events()
    record = as_json(rules.make_record(events[: first_of_round(events, 2) + 5], NAMES, viewer=1))
    with pytest.raises(record_import.CannotImport, match=r"hides the hands of seat\(s\) 0, 2"):
        record_import.import_record(record)
    assert not Game.objects.exists()


def test_a_bare_game_ended_is_stored_with_the_final_scores_and_winners():
    events = finished_events()
    record = as_json(rules.make_record(events, NAMES))
    record["events"][-1] = {"seq": len(events), "type": rules.GAME_ENDED}
    game = record_import.import_record(record)
    last = game.engine_events()[-1]
    assert last == {**events[-1], "seq": len(events)}
    assert last["winners"] == record["result"]["winners"]


def test_a_record_without_our_first_event_follows_it_and_keeps_what_it_does_not_know():
    events = finished_events()
    record = as_json(rules.make_record(events, NAMES))
    foreign = [{**event, "seq": event["seq"] - 1, "by": "another program"} for event in events[1:]]
    foreign.insert(3, {"seq": 4, "type": "photo_taken", "of": "the table"})
    for seq, event in enumerate(foreign, start=1):
        event["seq"] = seq
    record["events"] = foreign
    game = record_import.import_record(record)
    log = game.engine_events()
    assert log[0]["type"] == rules.GAME_CREATED
    assert log[1:] == [{**event, "seq": event["seq"] + 1} for event in foreign]
    assert game.status == Game.Status.FINISHED


@pytest.mark.parametrize(
    ("emails", "message"),
    [
        ({3: "x@example.com"}, "there is no seat 3: the record has seats 0 to 2"),
        ({1: "not an address"}, "'not an address' .seat 1. is not an email address"),
    ],
)
def test_seats_that_cannot_be_made_are_refused(emails, message):
    record = as_json(rules.make_record(finished_events(), NAMES))
    with pytest.raises(record_import.CannotImport, match=message):
        record_import.import_record(record, emails)
    assert not Game.objects.exists()


def test_a_name_too_long_for_a_seat_is_refused():
    record = as_json(rules.make_record(finished_events(), ["A" * 101, "Grace", "Alan"]))
    with pytest.raises(record_import.CannotImport, match="seat 0's name is longer than 100"):
        record_import.import_record(record)
    assert not Game.objects.exists()


def test_an_illegal_event_creates_nothing():
    record = as_json(rules.make_record(finished_events(), NAMES))
    built = next(e for e in record["events"] if e["type"] == rules.TRACK_BUILT)
    built["lines"] = [[[0, 0], [9, 9]]]
    with pytest.raises(rules.InvalidEvent, match="is not a line"):
        record_import.import_record(record)
    assert not Game.objects.exists()
