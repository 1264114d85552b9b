"""Appending to a game's event log: the step every change to a game ends in.

Events are appended only if the game's row is still at the version they follow (one
conditional UPDATE). Callers other than a move lock the row first (``lock_game``), as
they read more than the snapshot.
"""

from collections.abc import Mapping, Sequence

from django.db import transaction

from games import rules
from games.derived import snapshots
from games.derived.projection import project
from games.models import Event, Game, Seat
from games.services import random_deal
from games.signals import events_appended, events_recorded
from helpers import clock_source
from helpers.claims import Claim, claim_and_insert


class GameMovedOn(Exception):
    """The game is no longer at the version the player saw: someone else moved first."""

    def __init__(self, expected_version: int | None = None, version: int | None = None):
        self.expected_version = expected_version
        self.version = version
        super().__init__(
            "The game has moved on since you looked at it: reload to see the latest position."
        )


def load_state(game: Game):
    """The rules engine's state for ``game`` as the database holds it now."""
    return snapshots.latest(game).state


def append_events(game: Game, events: Sequence[Mapping]) -> Game:
    """Append engine ``events`` through the write path, which checks each against the
    rules (importing a record, building test positions); return the game."""
    events = [dict(event) for event in events]
    with transaction.atomic():
        locked = lock_game(game)
        append_to_log(locked, snapshots.current(locked), events, seats_at_table(locked))
    return locked


def lock_game(game: Game) -> Game:
    """Lock ``game``'s row for the rest of the transaction and read it afresh."""
    return Game.objects.select_for_update().get(pk=game.pk)


def seats_at_table(game: Game) -> list[Seat]:
    """``game``'s seats in play order with their accounts, for ``append_to_log``."""
    return list(game.seats.select_related("user").order_by("position"))


def append_to_log(
    game: Game,
    before: snapshots.Snapshot,
    events: list[dict],
    seats: Sequence[Seat],
    *,
    played: rules.GameState | None = None,
) -> snapshots.Snapshot:
    """Append ``events`` on top of ``before`` and update the projection; return the new
    snapshot.

    A round's end deals the next one here, so no game waits for a dealer. If another append
    got there first, raises GameMovedOn and writes nothing. ``played``: the state the
    engine already reached with ``events``, which are then not checked again.
    """
    events = list(events)
    after = before.then(events, played)
    while after.state.round > 0 and after.state.needs_deal:
        deal = random_deal.deal_round(after.state)
        after = after.then([deal])
        events.append(deal)
    now = clock_source.now()
    rows = [Event.from_engine(game, before.version + n, event) for n, event in enumerate(events, 1)]
    for row in rows:
        row.created_at = now
    # The new events are not written yet, but a clock event's deadline reads them.
    projection = project(game, after.state, rows[-1], seats, clock=after.clock, unwritten=rows)
    projection["log_digest"] = after.digest
    for name, value in projection.items():
        setattr(game, name, value)
    game.remind_at = next(iter(game.reminder_moments()), None)
    # Outbox rows written with the events; one there already (the same email) is skipped.
    answers = events_recorded.send(
        sender=Game, game=game, state=after.state, events=rows, snapshot=after, seats=seats
    )
    with_events = [row for _receiver, written in answers for row in written or ()]
    # The unique (game, seq) also stops a concurrent append of the same events.
    claim = Claim(game, [*projection, "remind_at"], expected={"version": before.version})
    if not claim_and_insert(claim, rows, rows_unless_present=with_events):
        raise GameMovedOn(before.version)
    # Keyed by the new log's digest: harmless even if this transaction rolls back.
    snapshots.store(after)
    # robust: what follows a commit never turns it into an error page; the minute scans
    # pick up whatever could not be queued.
    written = [row for row in with_events if row.pk is not None]
    transaction.on_commit(
        lambda: events_appended.send(
            sender=Game, game=game, events=rows, seats=seats, written=written
        ),
        robust=True,
    )
    return after
