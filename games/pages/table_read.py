"""A seat with its game (and the game's creator), its player's account and everyone at its
table, in one statement.

A board page reads this on every visit and poll, so it is one statement compiled once per
process (helpers.compiled_queries), whose rows become the models the ORM would give. A view
that reads more in the same statement builds it from ``columns`` and ``seats`` and hands
this read its own part of each row (``at``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import overload

from django.db import DEFAULT_DB_ALIAS
from django.db.models import Case, Expression, F, Model, Q, QuerySet, When

from accounts.models import User
from games.models import Game, Seat
from helpers.compiled_queries import CompiledQuery

# What the pages ask of a game's creator (whether the viewer made the game; who invites),
# read as select_related("game__created_by").only(...) reads it: on every row, so only
# these few columns, not the account's dates.
CREATOR_FIELDS = ("email", "name")
# The game's columns that cost most to decode (JSON, times), read on the viewer's row only.
DECODED = ("JSONField", "DateTimeField", "DurationField")
# An account's columns only signing in and the admin use: no page reads the password hash,
# and the account models are made without them (Django reads a left-out field if asked).
SIGN_IN_FIELDS = frozenset(
    ("password", "last_login", "is_superuser", "is_staff", "is_active", "date_joined")
)


@dataclass(frozen=True)
class SeatRow:
    """What a page shows of a seat at the table."""

    position: int
    name: str
    is_bot: bool
    autopilot: bool
    joined: bool
    bot_level: str = ""
    timeouts_in_a_row: int = 0


def _fields(
    model: type[Model], leave_out: frozenset[str] = frozenset()
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The model's columns but ``leave_out``: names for a query, attribute names for
    ``Model.from_db``."""
    fields = [f for f in model._meta.concrete_fields if f.name not in leave_out]
    return tuple(f.name for f in fields), tuple(f.attname for f in fields)


@dataclass(frozen=True)
class SeatAtTable:
    """A seat as a board page reads it, with every seat at its table."""

    seat: Seat
    rows: tuple[SeatRow, ...]
    seats: TableSeats


class TableRead:
    """Reads a seat and its table in one statement (see the module's docstring)."""

    def __init__(self) -> None:
        seat_names, self.seat_attnames = _fields(Seat)
        # The game's and the account's keys are the seat's own columns: not read twice.
        game_names, game_attnames = _fields(Game, frozenset(("id",)))
        user_names, user_attnames = _fields(User, SIGN_IN_FIELDS | {"id"})
        self.game_attnames = ("id", *game_attnames)
        self.user_attnames = ("id", *user_attnames)
        self.game_id_at = self.seat_attnames.index("game_id")
        self.names = (
            seat_names,
            tuple(f"game__{name}" for name in game_names),
            tuple(f"user__{name}" for name in user_names),
            tuple(f"game__created_by__{name}" for name in CREATOR_FIELDS),
        )
        self.viewers_only = {
            f"game__{field.name}"
            for field in Game._meta.concrete_fields
            if field.get_internal_type() in DECODED
        }
        self.query = CompiledQuery(
            lambda game, position: self.seats(game).values_list(*self.columns(position))
        )
        game_at = len(seat_names)
        user_at = game_at + len(game_names)
        creator_at = user_at + len(user_names)
        self.width = creator_at + len(CREATOR_FIELDS)
        self.parts = (
            slice(0, game_at),
            slice(game_at, user_at),
            slice(user_at, creator_at),
            slice(creator_at, self.width),
        )
        shown = (
            "position",
            "name",
            "is_bot",
            "autopilot",
            "joined_at",
            "bot_level",
            "timeouts_in_a_row",
        )
        self.row_fields = tuple(seat_names.index(name) for name in shown)

    def columns(self, position: int | Expression) -> tuple[str | Expression, ...]:
        """What ``seats`` reads for the seat at ``position``: every seat with its game,
        account and the game's creator, but the game's JSON and times on that seat's row
        only: on the others they would only repeat it, decoded again row by row."""
        seat, game, user, creator = self.names
        viewer = Q(position=position)
        return (
            *seat,
            *(
                Case(When(viewer, then=F(name)), default=None)
                if name in self.viewers_only
                else name
                for name in game
            ),
            *user,
            *creator,
        )

    @staticmethod
    def seats(game: int) -> QuerySet[Seat]:
        """The seats of game ``game`` in play order, which ``columns`` are read from."""
        return Seat.objects.filter(game_id=game).order_by("position")

    def __call__(self, game_id: int, position: int) -> SeatAtTable | None:
        """Seat ``position`` of game ``game_id`` at its table, or None."""
        return self.at(self.query.rows(game=game_id, position=position), position)

    def at(self, rows: list[tuple], position: int) -> SeatAtTable | None:
        """Seat ``position`` at its table, from ``rows`` of ``columns(position)`` (``seats``'s
        order)."""
        found, table = None, []
        at, name, is_bot, autopilot, joined_at, level, timeouts = self.row_fields
        for row in rows:
            table.append(
                SeatRow(
                    row[at],
                    row[name],
                    row[is_bot],
                    row[autopilot],
                    row[joined_at] is not None,
                    row[level],
                    row[timeouts],
                )
            )
            if row[at] == position:
                found = row
        if found is None:
            return None
        game_values = (found[self.game_id_at], *found[self.parts[1]])
        game = Game.from_db(DEFAULT_DB_ALIAS, self.game_attnames, game_values)
        if game.created_by_id is not None:
            creator = (game.created_by_id, *found[self.parts[3]])
            game.created_by = User.from_db(DEFAULT_DB_ALIAS, ("id", *CREATOR_FIELDS), creator)
        seat = self.model(found, game)
        return SeatAtTable(seat, tuple(table), TableSeats(self, seat, rows))

    def model(self, row: tuple, game: Game) -> Seat:
        """The seat of one of this read's ``row``s, with ``game`` and its account."""
        seat_part, _game_part, user_part, _creator_part = self.parts
        seat = Seat.from_db(DEFAULT_DB_ALIAS, self.seat_attnames, row[seat_part])
        seat.game = game
        if seat.user_id is not None:
            user_values = (seat.user_id, *row[user_part])
            seat.user = User.from_db(DEFAULT_DB_ALIAS, self.user_attnames, user_values)
        return seat


class TableSeats(Sequence[Seat]):
    """The seats at a table, in play order, each made a model only when asked for."""

    def __init__(self, read: TableRead, seat: Seat, rows: list[tuple]) -> None:
        self.read = read
        self.seat = seat
        self.rows = rows
        self.made: dict[int, Seat] = {seat.position: seat}

    def __len__(self) -> int:
        return len(self.rows)

    @overload
    def __getitem__(self, index: int) -> Seat: ...

    @overload
    def __getitem__(self, index: slice) -> list[Seat]: ...

    def __getitem__(self, index: int | slice) -> Seat | list[Seat]:
        if isinstance(index, slice):
            return [self[n] for n in range(len(self))[index]]
        row = self.rows[index]  # IndexError past the end, as a list's
        position = row[self.read.row_fields[0]]
        if position not in self.made:
            self.made[position] = self.read.model(row, self.seat.game)
        return self.made[position]
