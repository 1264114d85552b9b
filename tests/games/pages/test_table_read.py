"""A seat read with its table in one statement is the seat the ORM reads, and more."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.models import Seat
from games.pages.table_read import SIGN_IN_FIELDS, SeatRow, TableRead
from tests.factories import GameFactory, UserFactory, simulated_game

pytestmark = pytest.mark.django_db


def field_values(instance, leave_out=frozenset()) -> dict:
    return {
        f.attname: getattr(instance, f.attname)
        for f in instance._meta.concrete_fields
        if f.name not in leave_out
    }


def account_values(account) -> dict:
    """What the read gives of an account: all but the columns only signing in uses."""
    return field_values(account, leave_out=SIGN_IN_FIELDS)


def test_the_seat_its_game_and_account_are_the_orms():
    game = simulated_game(seats=4, seed=2, until=25)
    account = UserFactory(timezone="Europe/Berlin", language="de")
    Seat.objects.filter(game=game, position=2).update(user=account, browser_time_zone="Asia/Tokyo")
    read = TableRead()
    for position in range(4):
        expected = Seat.objects.select_related("game", "user").get(game=game, position=position)
        seat = read(game.pk, position).seat
        assert field_values(seat) == field_values(expected)
        assert field_values(seat.game) == field_values(expected.game)
        if position == 2:
            assert account_values(seat.user) == account_values(account)
        else:
            assert seat.user is None
    # A row as the ORM reads it: saving it updates that row.
    seat = read(game.pk, 1).seat
    seat.name = "Renamed"
    seat.save()
    assert Seat.objects.filter(game=game).count() == 4
    assert Seat.objects.get(game=game, position=1).name == "Renamed"


def test_the_table_is_every_seat_in_play_order():
    game = GameFactory(seats=4, started=False)
    Seat.objects.filter(game=game, position=1).update(joined_at=None, name="Invited")
    Seat.objects.filter(game=game, position=3).update(is_bot=True, autopilot=True)
    at = TableRead()(game.pk, 0)
    expected = [
        SeatRow(s.position, s.name, s.is_bot, s.autopilot, s.joined_at is not None)
        for s in Seat.objects.filter(game=game).order_by("position")
    ]
    assert list(at.rows) == expected
    assert [row.name for row in at.rows][1] == "Invited"
    assert at.rows[1].joined is False and at.rows[3].autopilot is True


def test_a_missing_seat_or_game_is_none():
    game = GameFactory(seats=3)
    read = TableRead()
    assert read(game.pk, 3) is None
    assert read(game.pk + 1000, 0) is None


def test_one_statement_reads_it_all():
    game = GameFactory(seats=3)
    account = UserFactory()
    Seat.objects.filter(game=game, position=0).update(user=account)
    read = TableRead()
    read(game.pk, 0)  # built once per process: not counted
    with CaptureQueriesContext(connection) as queries:
        at = read(game.pk, 0)
        facts = (at.seat.game.title, at.seat.user.email, at.rows)
    assert len(queries) == 1
    assert facts[1] == account.email


def test_the_tables_seats_are_the_orms_read_with_it_each_made_once():
    game = simulated_game(seats=4, seed=2, until=25)
    account = UserFactory()
    Seat.objects.filter(game=game, position=3).update(user=account)
    expected = list(Seat.objects.select_related("user").filter(game=game).order_by("position"))
    at = TableRead()(game.pk, 1)
    seat = at.seat
    with CaptureQueriesContext(connection) as queries:
        seats = at.seats
        assert len(seats) == 4
        assert [field_values(s) for s in seats] == [field_values(e) for e in expected]
        assert seats[1] is seat and seats[2] is seats[2] and seats[-1] is seats[3]
        assert [s.position for s in seats[1:3]] == [1, 2]
        assert account_values(seats[3].user) == account_values(account)
        assert all(s.game is seat.game for s in seats)
        with pytest.raises(IndexError):
            seats[4]
    assert len(queries) == 0


def test_the_games_creator_is_read_with_the_table(django_assert_num_queries):
    creator = UserFactory(name="Ada")
    game = GameFactory(seats=3, created_by=creator)
    read = TableRead()
    read(game.pk, 1)  # built once per process: not counted
    with django_assert_num_queries(1):
        made = read(game.pk, 1).seat.game.created_by
        assert (made.pk, made.email, made.name) == (creator.pk, creator.email, "Ada")
    assert TableRead()(GameFactory(seats=3).pk, 0).seat.game.created_by is None


def test_an_accounts_sign_in_columns_are_not_read_and_load_if_asked_for():
    game = GameFactory(seats=3)
    account = UserFactory()
    Seat.objects.filter(game=game, position=1).update(user=account)
    read = TableRead()
    user = read(game.pk, 1).seat.user
    assert user.get_deferred_fields() == SIGN_IN_FIELDS
    with CaptureQueriesContext(connection) as queries:
        assert user.password == account.password
    assert len(queries) == 1
    user.name = "Renamed"
    user.save()
    account.refresh_from_db()
    assert (account.name, account.password) == ("Renamed", user.password)
