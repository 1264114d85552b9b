"""The replay and simulate commands, run the way an operator runs them."""

import json
import subprocess
import sys

import pytest
from django.core.management import CommandError, call_command


def simulate(capsys, *args) -> dict:
    call_command("simulate", *args)
    return json.loads(capsys.readouterr().out)


def test_simulate_prints_a_whole_games_record(capsys):
    record = simulate(capsys, "--board", "transamerica", "--players", "4", "--seed", "7")
    assert record["format"] == "pbem-game-record/1"
    assert record["board"] == "transamerica"
    assert len(record["seats"]) == 4
    assert record["events"][-1]["type"] == "game_ended"
    assert record["result"]["winners"]


def test_simulate_is_repeatable_and_takes_the_options(capsys):
    args = ["--board", "transeuropa", "--players", "3", "--seed", "2"]
    first = simulate(capsys, *args, "--exclusive-tracks", "3", "--strict")
    assert first == simulate(capsys, *args, "--exclusive-tracks", "3", "--strict")
    assert first["options"] == {"exclusive_tracks": 3, "cities_must_join_start": True}
    assert any(e.get("exclusive") for e in first["events"])


def test_simulate_refuses_a_bad_player_count():
    with pytest.raises(CommandError, match="2 to 6 players"):
        call_command("simulate", "--players", "9")


@pytest.fixture
def record_file(tmp_path, capsys):
    def write(record):
        path = tmp_path / "game.json"
        path.write_text(json.dumps(record))
        return str(path)

    return write, simulate(capsys, "--players", "3", "--seed", "5")


def test_replay_prints_the_final_scores(record_file, capsys):
    write, record = record_file
    call_command("replay", write(record))
    out = capsys.readouterr().out
    assert out.startswith("Game over after round")
    for seat, score in zip(record["seats"], record["result"]["scores"], strict=True):
        assert f"{seat['name']}  {score:>3}" in out
    assert "(winner)" in out


def test_replay_names_the_first_wrong_event(record_file):
    write, record = record_file
    scored = next(e for e in record["events"] if e["type"] == "round_scored")
    scored["scores"] = [s + 1 for s in scored["scores"]]
    with pytest.raises(CommandError, match=rf"event {scored['seq']} is wrong: round_scored"):
        call_command("replay", write(record))


def test_replay_exits_non_zero(record_file, tmp_path):
    """The command as a process: exit status 1 and the message on stderr."""
    write, record = record_file
    built = next(e for e in record["events"] if e["type"] == "track_built")
    built["lines"] = [[[0, 0], [9, 9]]]
    path = write(record)
    done = subprocess.run(
        [sys.executable, "manage.py", "replay", path], capture_output=True, text=True, check=False
    )
    assert done.returncode == 1
    assert f"event {built['seq']} is wrong: track_built: (0,0)-(9,9) is not a line" in done.stderr


def test_replay_refuses_what_is_not_a_record(tmp_path):
    path = tmp_path / "x.json"
    path.write_text("{not json")
    with pytest.raises(CommandError, match="is not JSON"):
        call_command("replay", str(path))
    path.write_text(json.dumps({"format": "something else"}))
    with pytest.raises(CommandError, match="not a readable game record"):
        call_command("replay", str(path))
    with pytest.raises(CommandError, match="cannot read"):
        call_command("replay", str(tmp_path / "missing.json"))
