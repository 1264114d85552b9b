"""Appending to a game's event log: the step every change to a game ends in.

``append_to_log`` has the engine check the new events on top of the state they follow,
deals the next round when one ends, brings the projection up to date, and appends the
events with the outbox rows they cause, only if the game's row is still at the version
they follow (one conditional UPDATE: helpers.claims). Callers other than a move lock the
row first (``lock_game``), as they read more than the snapshot.
"""

from collections.abc import Mapping, Sequence

from django.db import transaction
from django.utils import timezone

from games import rules
from games.derived import snapshots
from games.derived.projection import project
from games.models import Event, Game, Seat
from games.services import random_deal
from games.signals import events_appended, events_recorded
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
    """Return the rules engine's state for ``game`` as it stands in the database now
    (cached, or replayed from its event log)."""
    return snapshots.latest(game).state


def append_events(game: Game, events: Sequence[Mapping]) -> Game:
    """Append engine ``events`` to ``game``'s log through the write path.

    Every event is checked by the engine (replayed on top of the current state), so this
    takes only what the rules allow. Used to import a game record and to build test
    positions quickly. Returns the game with its projection up to date.
    """
    events = [dict(event) for event in events]
    with transaction.atomic():
        locked = lock_game(game)
        append_to_log(locked, snapshots.current(locked), events)
    return locked


def lock_game(game: Game) -> Game:
    """Lock ``game``'s row for the rest of the transaction and read it afresh."""
    return Game.objects.select_for_update().get(pk=game.pk)


def append_to_log(
    game: Game,
    before: snapshots.Snapshot,
    events: list[dict],
    *,
    seats: Sequence[Seat] | None = None,
    played: rules.GameState | None = None,
) -> snapshots.Snapshot:
    """Append ``events`` to ``game``'s log and bring its projection up to date; return
    the snapshot after them.

    ``before`` is the snapshot at the version ``game`` was read at: the engine checks
    each event on top of it. When they end a round, the next round is dealt and recorded
    here too, so a game never waits for someone to deal. The game's row is updated only if
    it is still at that version, and the events, with the outbox rows they cause, are
    appended only then: one statement on PostgreSQL (helpers.claims). If another
    append got there first, this raises GameMovedOn (or the unique (game, seq)
    IntegrityError) and nothing is written (claim_and_insert is atomic by itself; inside
    the caller's transaction, the caller's writes go with it).
    ``seats``: the game's seats in play order with their accounts, when the caller has
    read them. ``played``: the state after ``events``, when the engine decided them
    (``rules.play``): they are not checked again.
    """
    events = list(events)
    after = before.then(events, played)
    while after.state.round > 0 and after.state.needs_deal:
        deal = random_deal.deal_round(after.state)
        after = after.then([deal])
        events.append(deal)
    now = timezone.now()
    rows = [Event.from_engine(game, before.version + n, event) for n, event in enumerate(events, 1)]
    for row in rows:
        row.created_at = now
    if seats is None:
        # For the projection (is a bot to move?) and the receivers (who to email).
        seats = list(game.seats.select_related("user").order_by("position"))
    # The projection reads the new events as well as the log's (a clock event's deadline
    # does): they are written below, with the game's row.
    projection = project(game, after.state, rows[-1], seats, unwritten=rows)
    projection["log_digest"] = after.digest
    for name, value in projection.items():
        setattr(game, name, value)
    # A new deadline (or none): the reminder scan looks at the turn at its first reminder.
    game.remind_at = next(iter(game.reminder_moments()), None)
    # What the receivers write with the events (outbox rows): a row that is there already
    # (the same email, written before) is skipped.
    answers = events_recorded.send(
        sender=Game, game=game, state=after.state, events=rows, snapshot=after, seats=seats
    )
    with_events = [row for _receiver, written in answers for row in written or ()]
    # The game's row is claimed only if it is still at the version the events follow, and
    # the rows are inserted only then; the unique (game, seq) of the events stops a
    # concurrent append of the same events besides.
    claim = Claim(game, [*projection, "remind_at"], expected={"version": before.version})
    if not claim_and_insert(claim, rows, rows_unless_present=with_events):
        raise GameMovedOn(before.version)
    # Keyed by the new log's digest: harmless even if this transaction rolls back.
    snapshots.store(after)
    # robust: what follows a commit (queueing a bot's turn, ...) never undoes it nor turns
    # it into an error page; the minute scans pick up whatever could not be queued.
    written = [row for row in with_events if row.pk is not None]
    transaction.on_commit(
        lambda: events_appended.send(
            sender=Game, game=game, events=rows, seats=seats, written=written
        ),
        robust=True,
    )
    return after
