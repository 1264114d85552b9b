"""manage.py tournament: bots against bots, seats rotated, repeatable."""

import io
import math

import pytest
from django.core.management import CommandError, call_command

from games.bots import BOTS, greedy_move
from games.management.commands import tournament as command
from games.management.commands.tournament import mean_interval, play_game, wilson
from games.rules import Options


def tournament(*args: str) -> str:
    out = io.StringIO()
    call_command("tournament", *args, stdout=out)
    return out.getvalue()


def rows(output: str) -> dict[str, list[str]]:
    return {line.split()[0]: line.split() for line in output.splitlines()[3:]}


@pytest.fixture
def twin(monkeypatch):
    """The greedy bot under a second name: two bots that always play alike, so whatever
    tells their figures apart is the tournament's doing, not the bots'."""
    monkeypatch.setitem(BOTS, "twin", greedy_move)


def test_it_prints_each_bots_games_wins_and_intervals(twin):
    output = tournament("--games", "4", "--players", "2", "--bots", "twin,greedy", "--workers", "1")
    assert "4 games of 2 players on TransAmerica, seed 0" in output
    table = rows(output)
    assert set(table) == {"twin", "greedy"}
    # Rotated seats: each bot played every game, once per seat per deal.
    assert table["twin"][1] == table["greedy"][1] == "4"
    wins = float(table["twin"][2]) + float(table["greedy"][2])
    assert wins == pytest.approx(4)  # shared wins add up to one per game
    # Each deal is played with each bot in each seat: bots that play alike score alike.
    assert table["twin"][1:] == table["greedy"][1:]


def test_the_same_seed_gives_the_same_table_and_workers_change_nothing():
    args = ("--games", "4", "--players", "2", "--bots", "greedy,greedy", "--seed", "7")
    alone = tournament(*args, "--workers", "1")
    assert tournament(*args, "--workers", "2") == alone
    other_seed = tournament(*args[:-1], "8", "--workers", "1")
    assert rows(other_seed) != rows(alone)


def test_each_deal_is_played_in_every_rotation(twin):
    jobs = [("transeuropa", ["twin", "greedy"], Options(), 3, turn) for turn in (0, 1)]
    first, second = (play_game(job) for job in jobs)
    assert [name for name, *_ in first] == ["twin", "greedy"]
    assert [name for name, *_ in second] == ["greedy", "twin"]
    assert sum(share for _name, share, *_rest in first) == pytest.approx(1)
    # The same deal, seat for seat: the same results, whichever name sits there.
    # (The slowest move is wall time: it is not compared.)
    assert [(share, losses) for _name, share, losses, _slowest in first] == [
        (share, losses) for _name, share, losses, _slowest in second
    ]


@pytest.mark.parametrize(
    "args, message",
    [
        (("--bots", "strong,champion"), "no bot called champion"),
        (("--bots", "strong,greedy,greedy"), "names 3 bots for 4 players"),
        (("--players", "7", "--bots", "greedy," * 6 + "greedy"), "2 to 6 players"),
        (("--games", "0"), "at least 1"),
        (("--exclusive-tracks", "9"), "exclusive_tracks"),
    ],
)
def test_bad_arguments_get_a_clear_error(args, message):
    with pytest.raises(CommandError, match=message):
        tournament(*args)


def test_wilson_interval():
    low, high = wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4)
    assert high == pytest.approx(0.5962, abs=1e-4)
    assert wilson(0, 10)[0] == 0.0
    assert wilson(0, 0) == (0.0, 1.0)


def test_mean_interval():
    mean, half = mean_interval([1, 2, 3, 4])
    assert mean == 2.5
    assert half == pytest.approx(1.96 * math.sqrt(5 / 3) / 2)
    assert mean_interval([3]) == (3, math.inf)


def test_line_ups_may_seat_the_published_strategies_and_show_their_slowest_move():
    output = tournament("--games", "2", "--players", "2", "--bots", "central,optimiser", "--times")
    table = rows(output)
    assert set(table) == {"central", "optimiser"}
    assert table["central"][-1].endswith("s")  # the slowest move, in seconds
    assert "slowest" in output
    assert "slowest" not in tournament("--games", "2", "--players", "2", "--bots", "central,greedy")


def test_the_suite_prints_a_row_per_setting_and_line_up(monkeypatch):
    """The suite's rows, on one setting and two line-ups (the greedy bot standing in for
    the strong one: the table, not the bot, is under test)."""
    monkeypatch.setattr(command, "SUITE_SETTINGS", (("transeuropa", 0), ("transeuropa", 3)))
    monkeypatch.setattr(command, "SUITE_OPPONENTS", ("greedy", "central"))
    monkeypatch.setitem(BOTS, "strong", greedy_move)
    output = tournament("--suite", "--games", "4", "--published-games", "2", "--players", "2")
    lines = output.splitlines()
    assert "4 games each (2 against the published strategies)" in lines[0]
    body = [line.split() for line in lines[2:]]
    assert [(row[0], row[1], row[2], row[3]) for row in body] == [
        ("transeuropa", "0", "greedy", "4"),
        ("transeuropa", "0", "central", "2"),
        ("transeuropa", "3", "greedy", "4"),
        ("transeuropa", "3", "central", "2"),
    ]
