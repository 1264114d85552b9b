"""The --bots line-up shared by the commands that seat bots."""

import pytest
from django.core.management import CommandError

from games.management.lineup import parse_lineup


def test_a_line_up_is_one_known_bot_a_seat_in_order():
    assert parse_lineup(" strong, greedy ,greedy,", 3) == ["strong", "greedy", "greedy"]


def test_unknown_bots_are_all_named_with_the_known_ones():
    with pytest.raises(CommandError) as error:
        parse_lineup("champion,strong,ace", 3)
    assert str(error.value) == "no bot called ace, champion: the bots are easy, greedy, strong"


def test_a_command_may_seat_players_of_its_own():
    sparring = {"greedy": None, "central": None}
    assert parse_lineup("central,greedy", 2, sparring) == ["central", "greedy"]
    with pytest.raises(CommandError, match="no bot called strong: the bots are greedy, central"):
        parse_lineup("strong,greedy", 2, sparring)


def test_the_line_up_must_seat_every_player():
    with pytest.raises(CommandError, match="--bots names 2 bots for 3 players"):
        parse_lineup("strong,greedy", 3)
    with pytest.raises(CommandError, match="--bots names 0 bots for 2 players"):
        parse_lineup("", 2)
