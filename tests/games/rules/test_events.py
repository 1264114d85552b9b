"""Event types are named once, by the engine, and their values never change."""

import ast
import random
from pathlib import Path

from games import rules
from games.bots import simulate

ROOT = Path(__file__).resolve().parents[3]

# The values in every stored log and every published record: changing one breaks them.
STABLE = {
    "GAME_CREATED": "game_created",
    "ROUND_STARTED": "round_started",
    "START_PLACED": "start_placed",
    "TRACK_BUILT": "track_built",
    "TURN_PASSED": "turn_passed",
    "ROUND_SCORED": "round_scored",
    "GAME_ENDED": "game_ended",
    "TURN_TIMED_OUT": "turn_timed_out",
    "SEAT_TAKEN_BY_BOT": "seat_taken_by_bot",
    "SEAT_TAKEN_BACK": "seat_taken_back",
    "CLOCK_PAUSED": "clock_paused",
    "CLOCK_RESUMED": "clock_resumed",
    "TURN_TAKEN_BACK": "turn_taken_back",
    "TIME_GIVEN": "time_given",
    "END_AGREED": "end_agreed",
    "NUDGED": "nudged",
    "SEAT_LEFT": "seat_left",
    "SUBSTITUTE_BACKED": "substitute_backed",
    "SEAT_HANDED_OVER": "seat_handed_over",
    "QUIET_HOURS_SET": "quiet_hours_set",
}


def test_the_names_and_their_values_are_stable():
    assert {name: getattr(rules, name) for name in STABLE} == STABLE
    every = set(rules.PLAY_EVENTS) | set(rules.AROUND_PLAY_EVENTS)
    assert every == set(STABLE.values())
    assert not set(rules.PLAY_EVENTS) & set(rules.AROUND_PLAY_EVENTS)
    assert set(rules.MOVE_EVENTS) < set(rules.PLAY_EVENTS)
    assert set(rules.CLOCK_EVENTS) < set(rules.AROUND_PLAY_EVENTS)
    assert set(rules.CONSENT_EVENTS) < set(rules.AROUND_PLAY_EVENTS)


def test_the_engine_writes_only_play_events():
    options = rules.Options(exclusive_tracks=3)
    events = simulate("transamerica", 3, random.Random(1), options)
    assert {event["type"] for event in events} <= set(rules.PLAY_EVENTS)


def test_events_around_play_pass_the_engine_by():
    events = simulate("transeuropa", 2, random.Random(2))[:6]
    state = rules.replay(events)
    around = [{"type": kind, "seat": 0} for kind in rules.AROUND_PLAY_EVENTS]
    after = rules.replay(events + around)
    assert after.version == state.version + len(around)
    after.version = state.version
    assert after == state


def event_types_written_in(path: Path) -> set[str]:
    """The string values of "type" keys in dict literals: the events a module writes."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if (
                    isinstance(key, ast.Constant)
                    and key.value == "type"
                    and isinstance(value, ast.Constant)
                ):
                    found.add(value.value)
    return found


def test_every_event_type_the_project_writes_is_named_by_the_engine():
    written = set()
    for package in ("games", "notifications", "accounts"):
        for path in (ROOT / package).rglob("*.py"):
            written |= event_types_written_in(path)
    assert written <= set(STABLE.values())
