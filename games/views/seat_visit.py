"""What the seat view reads ahead of a board page or a move: one statement.

The seat at its table (games.pages.table_read) and why mail to the seat's address is
stopped (notifications.preferences), read together: each extra round trip cost a board
page more than its whole work from the page cache. The view owns this read; the table read
gets only its own columns of each row.
"""

from __future__ import annotations

from dataclasses import dataclass

from games.pages.table_read import SeatAtTable, TableRead
from helpers.compiled_queries import CompiledQuery
from notifications import preferences


@dataclass(frozen=True)
class SeatVisit:
    """A seat at its table, and why mail to it is stopped (``preferences.stopped_from``)."""

    at: SeatAtTable
    mail_stopped: dict | None


class VisitRead:
    """Reads a ``SeatVisit`` in one statement, compiled once per process."""

    def __init__(self, table: TableRead) -> None:
        self.table = table
        self.width = table.width
        self.query = CompiledQuery(
            lambda game, position: table.seats(game).values_list(
                *table.columns(position), *preferences.stopped_columns(position)
            )
        )

    def __call__(self, game_id: int, position: int) -> SeatVisit | None:
        """Seat ``position`` of game ``game_id``, or None."""
        rows = self.query.rows(game=game_id, position=position)
        width = self.width
        at = self.table.at([row[:width] for row in rows], position)
        if at is None:
            return None
        # The mail columns are read for the viewer's row only.
        [stopped] = [row[width:] for row in rows if row[self.table.row_fields[0]] == position]
        return SeatVisit(at, preferences.stopped_from(at.seat, *stopped))
