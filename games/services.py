"""The one write path for games: every change to a game's history goes through here.

Each function runs in one transaction: lock the game row, rebuild the state from the
event log, let the rules engine decide, append the events, update the projection, and
schedule follow-up work for after the commit.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from functools import reduce

from django.db import IntegrityError, transaction
from django.utils import timezone

from games import rules
from games.dealing import deal_round
from games.models import Event, Game, Seat
from games.projection import project
from games.signals import events_appended, events_recorded


class GameMovedOn(Exception):
    """The game is no longer at the version the player saw: someone else moved first."""

    def __init__(self, expected_version: int | None = None, version: int | None = None):
        self.expected_version = expected_version
        self.version = version
        super().__init__(
            "The game has moved on since you looked at it: reload to see the latest position."
        )


@dataclass(frozen=True)
class SeatSpec:
    """Who sits at a seat when a game is created."""

    name: str
    email: str = ""
    user: object | None = None
    is_bot: bool = False


def load_state(game: Game):
    """Return the rules engine's state for ``game``, replayed from its event log."""
    return rules.replay(game.engine_events())


def create_game(
    board: str,
    options: rules.Options | Mapping | None,
    players: Sequence[SeatSpec | tuple[str, str]],
    created_by=None,
    time_per_move: timedelta | None = None,
) -> Game:
    """Create a game with one seat per player, in play order, and record game_created.

    The game waits in "setup" until start_game() deals the first round, which leaves
    room for players to accept their invitations first.
    """
    if board not in rules.BOARD_NAMES:
        raise ValueError(f"Unknown board {board!r}: choose one of {', '.join(rules.BOARD_NAMES)}")
    if options is None:
        options = rules.Options()
    elif not isinstance(options, rules.Options):
        options = rules.Options.from_dict(dict(options))
    specs = [p if isinstance(p, SeatSpec) else SeatSpec(*p) for p in players]
    first = rules.game_created(board, len(specs), options)
    state = rules.replay([first])  # the engine checks the seat count and options here

    with transaction.atomic():
        game = Game.objects.create(
            board=board,
            options=options.to_dict(),
            created_by=created_by,
            time_per_move=time_per_move,
        )
        now = timezone.now()
        Seat.objects.bulk_create(
            Seat(
                game=game,
                position=position,
                name=spec.name,
                email=spec.email,
                user=spec.user,
                is_bot=spec.is_bot,
                joined_at=now,
            )
            for position, spec in enumerate(specs)
        )
        _record(game, state, [first])
    return game


def start_game(game: Game) -> Game:
    """Deal the first round. Raises GameMovedOn if the game has already started."""
    with transaction.atomic():
        locked = _lock(game)
        state = load_state(locked)
        if state.round != 0 or not state.needs_deal:
            raise GameMovedOn(version=locked.version)
        deal = deal_round(state)
        _record(locked, rules.apply(state, deal), [deal])
    return locked


def submit_move(game: Game, seat: Seat, move, expected_version: int) -> Game:
    """Play ``move`` for ``seat``, if the game is still at ``expected_version``.

    Raises GameMovedOn when another move got there first, and lets the engine's
    IllegalMove through unchanged. Returns the game with its projection up to date.
    """
    if seat.game_id != game.pk:
        raise ValueError(f"Seat {seat.pk} does not belong to game {game.pk}")
    try:
        with transaction.atomic():
            locked = _lock(game)
            if locked.version != expected_version:
                raise GameMovedOn(expected_version, locked.version)
            state = load_state(locked)
            decided = rules.decide(state, seat.position, move)
            _record(locked, reduce(rules.apply, decided, state), decided)
    except IntegrityError as exc:
        # Only a concurrent append of the same seq gets here (the row lock normally
        # stops it first, but not on databases without row locks).
        raise GameMovedOn(expected_version) from exc
    return locked


def _lock(game: Game) -> Game:
    return Game.objects.select_for_update().get(pk=game.pk)


def _record(game: Game, state, events: list[dict]) -> list[Event]:
    """Append ``events`` to ``game``'s log and bring its projection up to date.

    ``state`` is the engine's state after ``events``. When they end a round, the next
    round is dealt and recorded here too, so a game never waits for someone to deal.
    Must run inside the transaction that locked ``game``.
    """
    events = list(events)
    while state.round > 0 and state.needs_deal:
        deal = deal_round(state)
        state = rules.apply(state, deal)
        events.append(deal)
    now = timezone.now()
    rows = [Event.from_engine(game, game.version + n, event) for n, event in enumerate(events, 1)]
    for row in rows:
        row.created_at = now
    Event.objects.bulk_create(rows)
    projection = project(game, state, rows[-1])
    for name, value in projection.items():
        setattr(game, name, value)
    game.save(update_fields=list(projection))
    events_recorded.send(sender=Game, game=game, state=state, events=rows)
    transaction.on_commit(lambda: events_appended.send(sender=Game, game=game, events=rows))
    return rows
