"""A player's move: decided before its transaction, written by one conditional claim.

A move takes no lock: the engine decides on the version the player saw, and a conditional
UPDATE of the game's row (with the unique (game, seq)) refuses a move that lost a race.
What the write needs is read beforehand into one value, ``MoveRequest``.
"""

from __future__ import annotations

from collections.abc import Sequence
from copy import copy
from dataclasses import dataclass

from django.db import IntegrityError, transaction

from games import rules
from games.derived import snapshots
from games.models import Game, Seat
from games.services.event_log import GameMovedOn, append_to_log, seats_at_table


@dataclass(frozen=True)
class MoveRequest:
    """What a move is decided on and written with, read before the write."""

    game: Game
    seat: Seat
    seats: Sequence[Seat]
    before: snapshots.Snapshot

    def __post_init__(self) -> None:
        if self.seat.game_id != self.game.pk:
            raise ValueError(f"Seat {self.seat.pk} does not belong to game {self.game.pk}")
        if self.before.version != self.game.version:
            raise ValueError("the snapshot is not at the game's version")

    @classmethod
    def read(cls, game: Game, seat: Seat, expected_version: int) -> MoveRequest:
        """Read what a move of ``seat`` needs, or raise GameMovedOn if the row is not at
        ``expected_version`` (the caller's copy may be older than what the player saw)."""
        if game.version != expected_version:
            game = Game.objects.get(pk=game.pk)
            if game.version != expected_version:
                raise GameMovedOn(expected_version, game.version)
        return cls(game, seat, seats_at_table(game), snapshots.current(game))


def submit_move(
    game: Game, seat: Seat, move, expected_version: int, *, played_by: str | None = None
) -> Game:
    """Play ``move`` for ``seat`` if the game is still at ``expected_version``."""
    return make_move(MoveRequest.read(game, seat, expected_version), move, played_by=played_by)


def make_move(request: MoveRequest, move, *, played_by: str | None = None) -> Game:
    """Play ``move`` for ``request.seat``; return the game with its projection up to date.

    Raises GameMovedOn when another move got there first, or the engine's IllegalMove.
    ``played_by`` ("bot", "plan") is marked on the move's event.
    """
    game, seat, before = request.game, request.seat, request.before
    expected_version = before.version
    try:
        decided, played = rules.play(before.state, seat.position, move)
    except rules.IllegalMove:
        # Judged on the caller's copy: if the game has moved on since, that is the answer.
        now_at = Game.objects.filter(pk=game.pk).values_list("version", flat=True).first()
        if now_at != expected_version:
            raise GameMovedOn(expected_version, now_at) from None
        raise
    if played_by is not None:
        decided = [
            {**event, "played_by": played_by} if event["type"] in rules.MOVE_EVENTS else event
            for event in decided
        ]
    moved = copy(game)  # the caller's copy stays as read if the game has moved on
    # With no timeout count to change, the claim is the only write, atomic by itself.
    on_record = before.timeouts_on_record(seat.position)
    try:
        if not on_record:
            append_to_log(moved, before, decided, request.seats, played=played)
            return moved
        with transaction.atomic():  # the events and the seat's count: both or neither
            after = append_to_log(moved, before, decided, request.seats, played=played)
            in_a_row = after.timeouts_in_a_row(seat.position)
            if in_a_row != on_record:
                Seat.objects.filter(pk=seat.pk).update(timeouts_in_a_row=in_a_row)
    except IntegrityError as exc:
        # A concurrent append of the same seq that slipped past the conditional update.
        raise GameMovedOn(expected_version) from exc
    return moved
