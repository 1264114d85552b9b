"""A finished game's record says which moves a person did not make by hand ("played_by")."""

import json

import pytest

from games import rules
from games.models import PlanTurn
from games.pages import replay_page
from games.services import record_import
from tests.factories import simulated_game

pytestmark = pytest.mark.django_db


def move_seqs(game) -> list[int]:
    return list(
        game.events.filter(type__in=rules.MOVE_EVENTS).order_by("seq").values_list("seq", flat=True)
    )


def test_a_finished_games_record_marks_the_moves_plans_played():
    game = simulated_game()
    planned = move_seqs(game)[5:8]
    for seq in planned:
        seat = game.events.get(seq=seq).data["seat"]
        PlanTurn.objects.create(game=game, seq=seq, seat=seat)
    record = replay_page.record(game)
    marked = [e["seq"] for e in record["events"] if e.get("played_by") == "plan"]
    assert marked == planned
    assert not any(e.get("played_by") == "bot" for e in record["events"])
    # Readers ignore the key: the record replays, and imports into the same game.
    assert rules.replay_record(json.loads(json.dumps(record))).is_over
    imported = record_import.import_record(json.loads(json.dumps(record)))
    plain = [{k: v for k, v in e.items() if k != "played_by"} for e in imported.engine_events()]
    assert plain == game.engine_events()


def test_a_running_games_record_never_marks_them():
    game = simulated_game(until=40)
    for seq in move_seqs(game)[3:6]:
        PlanTurn.objects.create(game=game, seq=seq, seat=game.events.get(seq=seq).data["seat"])
    record = replay_page.record(game, viewer=0)
    assert not any("played_by" in event for event in record["events"])
