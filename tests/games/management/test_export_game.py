import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from games import rules
from tests.factories import running_game_in_round_2, simulated_game

pytestmark = pytest.mark.django_db


def export(*args) -> dict:
    out = StringIO()
    call_command("export_game", *[str(arg) for arg in args], stdout=out)
    return json.loads(out.getvalue())


def current_hands(record: dict) -> list:
    return [e for e in record["events"] if e["type"] == "round_started"][-1]["hands"]


def test_prints_a_finished_games_record_that_replays():
    game = simulated_game(names=["Ada", "Grace", "Alan"])
    record = export(game.pk)
    assert record["format"] == rules.FORMAT
    assert record["board"] == "transamerica"
    assert [seat["name"] for seat in record["seats"]] == ["Ada", "Grace", "Alan"]
    assert [e["seq"] for e in record["events"]] == list(range(1, game.version + 1))
    state = rules.replay_record(record)
    assert record["result"] == {"scores": state.scores, "winners": state.winners}


def test_a_running_game_hides_every_hand_of_the_current_round():
    game = running_game_in_round_2()
    assert current_hands(export(game.pk)) == [None, None, None]


def test_as_seat_shows_that_seats_own_hand_only():
    game = running_game_in_round_2()
    hands = current_hands(export(game.pk, "--as-seat", 1))
    assert hands[0] is None and hands[2] is None
    assert len(hands[1]) == 5


def test_an_unknown_game_or_seat_is_a_clear_error():
    game = running_game_in_round_2()
    with pytest.raises(CommandError, match="There is no game 999999"):
        export(999_999)
    with pytest.raises(CommandError, match="has seats 0 to 2, not 3"):
        export(game.pk, "--as-seat", 3)
