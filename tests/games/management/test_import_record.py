"""manage.py import_record: a record goes in, and export_game gives it back."""

import json
import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from games import rules
from games.models import Game

pytestmark = pytest.mark.django_db


def run(command: str, *args) -> str:
    out = StringIO()
    call_command(command, *[str(arg) for arg in args], stdout=out)
    return out.getvalue()


def simulated(*args) -> dict:
    return json.loads(run("simulate", *args))


def write(tmp_path, record, name="game.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(record))
    return str(path)


def imported(path: str, *args) -> Game:
    out = run("import_record", path, *args)
    number = re.fullmatch(r"Imported as game (\d+) \(.*\)\.\n", out)
    assert number, out
    return Game.objects.get(pk=int(number.group(1)))


def test_import_then_export_gives_back_the_same_record(tmp_path):
    record = simulated("--players", "3", "--seed", "5", "--exclusive-tracks", "3")
    game = imported(write(tmp_path, record), "--seat", "0=ada@example.com")
    assert json.loads(run("export_game", game.pk)) == record
    assert game.seats.get(position=0).email == "ada@example.com"
    assert set(game.seats.exclude(position=0).values_list("email", flat=True)) == {""}


@pytest.mark.parametrize(
    "args",
    [
        ("--board", "transamerica", "--players", "2", "--seed", "1"),
        ("--board", "transeuropa", "--players", "6", "--seed", "2", "--exclusive-tracks", "3"),
        ("--board", "transamerica", "--players", "4", "--seed", "3", "--strict"),
        ("--board", "transeuropa", "--players", "3", "--seed", "4", "--strict",
         "--exclusive-tracks", "3"),
        ("--players", "2", "--seed", "0", "--bots", "strong,greedy"),
    ],
)  # fmt: skip
def test_every_record_simulate_writes_replays_and_imports(tmp_path, args):
    record = simulated(*args)
    path = write(tmp_path, record)
    assert run("replay", path).startswith("Game over after round")
    game = imported(path)
    assert game.status == Game.Status.FINISHED
    assert game.seat_names() == [seat["name"] for seat in record["seats"]]
    assert json.loads(run("export_game", game.pk)) == record


def test_a_bare_game_ended_replays_and_imports(tmp_path):
    record = simulated("--players", "3", "--seed", "6")
    last = record["events"][-1]
    assert last["type"] == rules.GAME_ENDED
    record["events"][-1] = {"type": rules.GAME_ENDED, "seq": last["seq"]}
    path = write(tmp_path, record)
    assert "(winner)" in run("replay", path)
    game = imported(path)
    assert game.engine_events()[-1] == last


def test_a_record_with_hidden_hands_is_refused(tmp_path):
    record = simulated("--players", "3", "--seed", "7")
    second = next(e for e in record["events"] if e["type"] == "round_started" and e["round"] == 2)
    running = rules.make_record(record["events"][: second["seq"] + 4], ["A", "B", "C"], viewer=0)
    with pytest.raises(CommandError, match=r"cannot import: event \d+ hides the hands of seat"):
        run("import_record", write(tmp_path, running))
    assert not Game.objects.exists()


@pytest.fixture
def record_path(tmp_path):
    return write(tmp_path, simulated("--players", "2", "--seed", "8"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--seat", "zero=ada@example.com"), "--seat takes N=address"),
        (("--seat", "0"), "--seat takes N=address"),
        (("--seat", "0=a@example.com", "--seat", "0=b@example.com"), "more than once"),
        (("--seat", "2=a@example.com"), "there is no seat 2: the record has seats 0 to 1"),
        (("--seat", "1=nobody"), "'nobody' \\(seat 1\\) is not an email address"),
    ],
)
def test_bad_seats_are_a_clear_error(record_path, args, message):
    with pytest.raises(CommandError, match=message):
        run("import_record", record_path, *args)
    assert not Game.objects.exists()


def test_bad_input_is_a_clear_error_and_creates_nothing(tmp_path):
    with pytest.raises(CommandError, match="cannot read"):
        run("import_record", tmp_path / "missing.json")
    (tmp_path / "broken.json").write_text("{not json")
    with pytest.raises(CommandError, match="is not JSON"):
        run("import_record", tmp_path / "broken.json")
    with pytest.raises(CommandError, match="not a readable game record: unknown format"):
        run("import_record", write(tmp_path, {"format": "something else"}))
    record = simulated("--players", "2", "--seed", "9")
    built = next(e for e in record["events"] if e["type"] == rules.TRACK_BUILT)
    built["seat"] = 1 - built["seat"]
    with pytest.raises(CommandError, match=rf"event {built['seq']} is wrong: track_built: "):
        run("import_record", write(tmp_path, record))
    assert not Game.objects.exists()
