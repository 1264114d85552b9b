"""The replay and simulate commands, run the way an operator runs them."""

import json
import subprocess
import sys

import pytest
from django.core.management import CommandError, call_command

from games import rules


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


def test_simulate_seats_greedy_bots_by_default_and_names_them(capsys):
    record = simulate(capsys, "--players", "3", "--seed", "4")
    assert [seat["name"] for seat in record["seats"]] == [
        "Greedy bot 1",
        "Greedy bot 2",
        "Greedy bot 3",
    ]
    assert record == simulate(capsys, "--players", "3", "--seed", "4", "--bots", "greedy," * 3)


def test_simulate_plays_the_line_up_it_is_given(capsys, tmp_path):
    """Two players and a short game (two rounds): the strong bot is slow."""
    args = ["--players", "2", "--seed", "0"]
    record = simulate(capsys, *args, "--bots", "strong, greedy")
    assert [seat["name"] for seat in record["seats"]] == ["Strong bot 1", "Greedy bot 2"]
    state = rules.replay_record(record)
    assert state.is_over
    assert record["result"]["winners"] == state.winners
    # The same deals played by greedy bots alone make another game: the strong bot played.
    assert record["events"] != simulate(capsys, *args)["events"]

    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    call_command("replay", str(path))
    out = capsys.readouterr().out
    for seat, score in zip(record["seats"], state.scores, strict=True):
        assert f"{seat['name']}  {score:>3}" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ("--bots", "strong,champion"),
            "no bot called champion: the bots are easy, greedy, strong",
        ),
        (("--bots", "strong,greedy,greedy"), "--bots names 3 bots for 4 players"),
        (("--players", "2", "--bots", "greedy"), "--bots names 1 bots for 2 players"),
    ],
)
def test_simulate_refuses_a_bad_line_up(args, message, capsys):
    with pytest.raises(CommandError, match=message):
        call_command("simulate", *args)
    assert capsys.readouterr().out == ""  # refused before playing anything


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
