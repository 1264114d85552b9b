"""A game from its creation to its first deal: settings, seats, invitations accepted."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta

from django.db import transaction

from games import rules
from games.derived import snapshots
from games.models import Game, Seat, default_reminder_hours
from games.services import clock, random_deal
from games.services.event_log import GameMovedOn, append_to_log, lock_game, seats_at_table
from games.services.seats import invite
from helpers import clock_source


@dataclass(frozen=True)
class SeatSpec:
    """Who sits at a seat when a game is created."""

    name: str
    email: str = ""
    user: object | None = None
    is_bot: bool = False
    bot_level: str = ""
    # False for an invited player, who takes the seat by following their link.
    joined: bool = True
    # False when the address is over its invitation limits: the creator reminds later.
    invite: bool = True


@dataclass(frozen=True)
class GameSettings:
    """How a new game is played: its board, variants and clock, as its creator chose."""

    board: str
    options: rules.Options = field(default_factory=rules.Options)
    title: str = ""
    time_per_move: timedelta | None = None
    reminder_hours: tuple[int, ...] = tuple(default_reminder_hours())
    on_timeout: str = Game.OnTimeout.BOT
    bot_takeover_after: int = 3
    start_now: bool = False
    time_zone: str = "UTC"
    language: str = ""  # the site's default when empty
    weekend_pause: bool = False  # the clock stops from Saturday to Monday (game's zone)
    follows: Game | None = None  # the finished game whose table plays again (rematch)


def create_game(
    board: str,
    options: rules.Options | Mapping | None,
    players: Sequence[SeatSpec | tuple[str, str]],
    created_by=None,
    time_per_move: timedelta | None = None,
) -> Game:
    """Create a game with one seat per player, in play order; it waits in "setup" for
    invitations to be accepted until start_game() deals."""
    if board not in rules.BOARD_NAMES:
        raise ValueError(f"Unknown board {board!r}: choose one of {', '.join(rules.BOARD_NAMES)}")
    if options is None:
        options = rules.Options()
    elif not isinstance(options, rules.Options):
        options = rules.Options.from_dict(dict(options))
    specs = [p if isinstance(p, SeatSpec) else SeatSpec(*p) for p in players]
    first = rules.game_created(board, len(specs), options)
    rules.replay([first])  # the engine checks the seat count and options here

    with transaction.atomic():
        game = Game.objects.create(
            board=board,
            options=options.to_dict(),
            created_by=created_by,
            time_per_move=time_per_move,
        )
        now = clock_source.now()
        Seat.objects.bulk_create(
            Seat(
                game=game,
                position=position,
                name=spec.name,
                email=spec.email,
                user=spec.user,
                is_bot=spec.is_bot,
                bot_level=spec.bot_level,
                joined_at=now if spec.joined else None,
            )
            for position, spec in enumerate(specs)
        )
        append_to_log(game, snapshots.EMPTY, [first], seats_at_table(game))
    return game


def start_game(game: Game) -> Game:
    """Deal the first round. Raises GameMovedOn if the game has already started."""
    with transaction.atomic():
        locked = lock_game(game)
        before = snapshots.current(locked)
        state = before.state
        if state.round != 0 or not state.needs_deal:
            raise GameMovedOn(version=locked.version)
        seats = seats_at_table(locked)
        quiet = [clock.account_quiet_hours(locked, seat) for seat in seats]
        deal = random_deal.deal_round(state)
        append_to_log(locked, before, [deal, *(event for event in quiet if event)], seats)
    return locked


def open_game(settings: GameSettings, seats: Sequence[SeatSpec], created_by=None) -> Game:
    """Create a game with its settings and invite every player who has not joined yet;
    it starts now if nobody waits (or ``start_now``), else when the last one joins."""

    with transaction.atomic():
        game = create_game(
            settings.board, settings.options, seats, created_by, settings.time_per_move
        )
        game.title = settings.title
        game.on_timeout = settings.on_timeout
        game.bot_takeover_after = settings.bot_takeover_after
        game.reminder_hours = list(settings.reminder_hours)
        game.time_zone = settings.time_zone
        game.language = settings.language or game.language
        game.weekend_pause = settings.weekend_pause
        game.follows = settings.follows
        game.save(
            update_fields=[
                "follows",
                "weekend_pause",
                "title",
                "on_timeout",
                "bot_takeover_after",
                "reminder_hours",
                "time_zone",
                "language",
            ]
        )
        invited = list(game.seats.filter(joined_at__isnull=True, is_bot=False))
        for seat in invited:
            if seats[seat.position].invite:
                invite(seat)
        if settings.start_now or not invited:
            game = start_game(game)
    return game


def accept_seat(seat: Seat) -> Game:
    """Take an invited seat; start the game when it was the last one waiting."""
    with transaction.atomic():
        game = lock_game(seat.game)
        seat = Seat.objects.select_for_update().get(pk=seat.pk)
        if seat.joined_at is None:
            seat.joined_at = clock_source.now()
            seat.declined_at = None  # said no, then changed their mind
            seat.save(update_fields=["joined_at", "declined_at"])
        waiting = game.seats.filter(joined_at__isnull=True, is_bot=False).exists()
        if game.status == Game.Status.SETUP and not waiting:
            game = start_game(game)
    return game
