"""A seat with its game, its player's account and everyone at its table, in one statement.

A board page is read on every visit and every poll, and most of its time went to reading
it: the seat with its game and account, then the table's rows, two queries whose SQL the
ORM builds anew each time. Here they are one statement, built once per process
(helpers.compiled_queries), and its rows become the models the ORM would have given.

    read = TableRead(also={"suppression": Subquery(...)})
    seat = read(game_id, position)  # None when the game has no such seat
    seat.game, seat.user             # loaded with it
    seat.table                       # a SeatRow for each seat, in play order
    read.seats(seat)                 # every seat at the table as models (for a move)
    seat.suppression                 # each of ``also``, set as annotate() sets it
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import overload

from django.db import DEFAULT_DB_ALIAS
from django.db.models import Expression, Model

from accounts.models import User
from games.models import Game, Seat
from helpers.compiled_queries import CompiledQuery


@dataclass(frozen=True)
class SeatRow:
    """What a page shows of a seat at the table."""

    position: int
    name: str
    is_bot: bool
    autopilot: bool
    joined: bool
    bot_level: str = ""


def _fields(model: type[Model]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The model's columns: names for a query, attribute names for ``Model.from_db``."""
    fields = model._meta.concrete_fields
    return tuple(f.name for f in fields), tuple(f.attname for f in fields)


class TableRead:
    """Reads a seat, its game, its player's account and every seat's row at its table in
    one statement, with ``also`` (expressions of a seat's row, by name) for the seat."""

    def __init__(self, also: Mapping[str, Expression] | None = None) -> None:
        self.also = dict(also or {})
        seat_names, self.seat_attnames = _fields(Seat)
        game_names, self.game_attnames = _fields(Game)
        user_names, self.user_attnames = _fields(User)
        columns = (
            *seat_names,
            *(f"game__{name}" for name in game_names),
            *(f"user__{name}" for name in user_names),
            *self.also.values(),
        )
        self.query = CompiledQuery(
            lambda game: (
                Seat.objects.filter(game_id=game).order_by("position").values_list(*columns)
            )
        )
        # Where each part of a row starts and ends, and where a SeatRow's columns are.
        game_at = len(seat_names)
        user_at = game_at + len(game_names)
        also_at = user_at + len(user_names)
        self.parts = (slice(0, game_at), slice(game_at, user_at), slice(user_at, also_at))
        self.also_at = also_at
        shown = ("position", "name", "is_bot", "autopilot", "joined_at", "bot_level")
        self.row_fields = tuple(seat_names.index(name) for name in shown)

    def __call__(self, game_id: int, position: int) -> Seat | None:
        """Seat ``position`` of game ``game_id``, with its game, account and table; None
        when there is no such seat."""
        found, table = None, []
        at, name, is_bot, autopilot, joined_at, level = self.row_fields
        rows = self.query.rows(game=game_id)
        for row in rows:
            table.append(
                SeatRow(
                    row[at],
                    row[name],
                    row[is_bot],
                    row[autopilot],
                    row[joined_at] is not None,
                    row[level],
                )
            )
            if row[at] == position:
                found = row
        if found is None:
            return None
        game = Game.from_db(DEFAULT_DB_ALIAS, self.game_attnames, found[self.parts[1]])
        seat = self._seat(found, game)
        seat.table = tuple(table)
        seat.table_rows = rows
        return seat

    def seats(self, seat: Seat) -> TableSeats:
        """Every seat at the table of ``seat`` (as this read it), in play order, as models
        with their accounts and ``also``; ``seat`` itself at its place. What a move's
        write path reads of the table, without reading it again."""
        return TableSeats(self, seat)

    def _seat(self, row: tuple, game: Game) -> Seat:
        seat_part, _game_part, user_part = self.parts
        seat = Seat.from_db(DEFAULT_DB_ALIAS, self.seat_attnames, row[seat_part])
        seat.game = game
        if seat.user_id is not None:
            seat.user = User.from_db(DEFAULT_DB_ALIAS, self.user_attnames, row[user_part])
        for name, value in zip(self.also, row[self.also_at :], strict=True):
            setattr(seat, name, value)
        return seat


class TableSeats(Sequence[Seat]):
    """The seats at a table as ``TableRead.seats`` gives them, each made a model when first
    asked for: a move looks at the seat to move next, and seldom at the others."""

    def __init__(self, read: TableRead, seat: Seat) -> None:
        self.read = read
        self.seat = seat
        self.made: dict[int, Seat] = {seat.position: seat}

    def __len__(self) -> int:
        return len(self.seat.table_rows)

    @overload
    def __getitem__(self, index: int) -> Seat: ...

    @overload
    def __getitem__(self, index: slice) -> list[Seat]: ...

    def __getitem__(self, index: int | slice) -> Seat | list[Seat]:
        if isinstance(index, slice):
            return [self[n] for n in range(len(self))[index]]
        row = self.seat.table_rows[index]  # IndexError past the end, as a list's
        position = row[self.read.row_fields[0]]
        if position not in self.made:
            self.made[position] = self.read._seat(row, self.seat.game)
        return self.made[position]
