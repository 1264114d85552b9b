"""A player's move: decided before its transaction, written by one conditional claim.

A move takes no lock: the engine decides on the state at the version the player saw, and
the transaction then appends only if the game is still there. The unique (game, seq) of
the events and one conditional UPDATE of the game's row refuse a move that lost a race.
On PostgreSQL that transaction is usually one statement, sent without BEGIN and COMMIT
(helpers.claims.claim_and_insert).
"""

from collections.abc import Sequence
from copy import copy

from django.db import IntegrityError, transaction

from games import rules
from games.derived import snapshots
from games.models import Game, Seat
from games.services.event_log import GameMovedOn, append_to_log


def submit_move(
    game: Game,
    seat: Seat,
    move,
    expected_version: int,
    *,
    seats: Sequence[Seat] | None = None,
    before: snapshots.Snapshot | None = None,
) -> Game:
    """Play ``move`` for ``seat``, if the game is still at ``expected_version``.

    Raises GameMovedOn when another move got there first, and lets the engine's
    IllegalMove through unchanged. Returns the game with its projection up to date.
    ``seats``: the game's seats in play order with their accounts, when the caller has
    read them (a board page has); else they are read. ``before``: the game's snapshot as
    the caller read it, when it has one (a board page checks the move's form with it);
    used only if it is the one of ``game``'s log at ``expected_version``.

    The engine decides before the transaction, on the state at ``expected_version``; the
    transaction then appends only if the game is still there (see append_to_log), so a move
    takes no lock while it is being decided and a stale one changes nothing.
    """
    if seat.game_id != game.pk:
        raise ValueError(f"Seat {seat.pk} does not belong to game {game.pk}")
    if game.version != expected_version:
        # The caller's copy may be older than what the player saw: the row decides.
        game = Game.objects.get(pk=game.pk)
        if game.version != expected_version:
            raise GameMovedOn(expected_version, game.version)
    if before is None or before.key != snapshots.key_for(game.version, game.log_digest):
        before = snapshots.current(game)
    try:
        decided, played = rules.play(before.state, seat.position, move)
    except rules.IllegalMove:
        # Judged on the caller's copy: if the game has moved on since, that is the answer.
        now_at = Game.objects.filter(pk=game.pk).values_list("version", flat=True).first()
        if now_at != expected_version:
            raise GameMovedOn(expected_version, now_at) from None
        raise
    moved = copy(game)  # the caller's copy stays as read if the game has moved on
    # A move of one's own ends a run of timeouts; a bot's move after a timeout continues
    # it (the same count record_timeout() makes). The seat's row holds the count the log
    # gave at ``before``, and only a count above 0 can change. Without one to change, the
    # move's only write is append_to_log's claim with its rows, atomic by itself.
    on_record = before.timeouts_on_record(seat.position)
    try:
        if not on_record:
            append_to_log(moved, before, decided, seats=seats, played=played)
            return moved
        with transaction.atomic():  # the events and the seat's count: both or neither
            after = append_to_log(moved, before, decided, seats=seats, played=played)
            in_a_row = after.timeouts_in_a_row(seat.position)
            if in_a_row != on_record:
                Seat.objects.filter(pk=seat.pk).update(timeouts_in_a_row=in_a_row)
    except IntegrityError as exc:
        # Only a concurrent append of the same seq gets here (the conditional update of
        # the game's row normally stops it first).
        raise GameMovedOn(expected_version) from exc
    return moved
