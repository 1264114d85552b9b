"""The one write path for games: every change to a game's history goes through here.

Each function runs in one transaction: lock the game row, take the state at its version
(games.snapshots: cached, or rebuilt from the event log), let the rules engine decide,
append the events, update the projection, and schedule follow-up work for after the
commit. The state after the new events is folded onto the one the move started from and
cached for the pages that follow: nothing is replayed twice.

A move (submit_move) is decided before its transaction, which then takes no lock first:
the unique (game, seq) of its events and one conditional UPDATE of the game's row check
that nobody moved meanwhile. On PostgreSQL that transaction is usually one statement,
sent without BEGIN and COMMIT (games.single_statement.atomic_claim). The other changes
lock the row first, as they read more than the snapshot.
"""

from collections.abc import Mapping, Sequence
from copy import copy
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from accounts.models import User
from games import rules, snapshots
from games.links import rotate_link, start_fresh_link
from games.models import Event, Game, Seat, default_reminder_hours
from games.projection import project
from games.random_deal import deal_round
from games.signals import events_appended, events_recorded, seat_invited
from games.single_statement import Claim, atomic_claim, claim_and_insert


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
    bot_level: str = ""
    # False for an invited player, who takes the seat by following their link.
    joined: bool = True
    # False for an invited player who gets no invitation now (their address is over its
    # invitation limits): the creator reminds them later or gives the seat to another.
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


def load_state(game: Game):
    """Return the rules engine's state for ``game`` as it stands in the database now
    (cached, or replayed from its event log)."""
    return snapshots.latest(game).state


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
    rules.replay([first])  # the engine checks the seat count and options here

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
                bot_level=spec.bot_level,
                joined_at=now if spec.joined else None,
            )
            for position, spec in enumerate(specs)
        )
        _record(game, snapshots.EMPTY, [first])
    return game


def start_game(game: Game) -> Game:
    """Deal the first round. Raises GameMovedOn if the game has already started."""
    with transaction.atomic():
        locked = _lock(game)
        before = snapshots.current(locked)
        state = before.state
        if state.round != 0 or not state.needs_deal:
            raise GameMovedOn(version=locked.version)
        _record(locked, before, [deal_round(state)])
    return locked


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
    transaction then appends only if the game is still there (see _record), so a move
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
    # move's only write is _record's claim with its rows (see atomic_claim).
    on_record = before.timeouts_on_record(seat.position)
    try:
        with transaction.atomic() if on_record else atomic_claim():
            after = _record(moved, before, decided, seats=seats, played=played)
            in_a_row = after.timeouts_in_a_row(seat.position)
            if in_a_row != on_record:
                Seat.objects.filter(pk=seat.pk).update(timeouts_in_a_row=in_a_row)
    except IntegrityError as exc:
        # Only a concurrent append of the same seq gets here (the conditional update of
        # the game's row normally stops it first).
        raise GameMovedOn(expected_version) from exc
    return moved


def append_events(game: Game, events: Sequence[Mapping]) -> Game:
    """Append engine ``events`` to ``game``'s log through the write path.

    Every event is checked by the engine (replayed on top of the current state), so this
    takes only what the rules allow. Used to import a game record and to build test
    positions quickly. Returns the game with its projection up to date.
    """
    events = [dict(event) for event in events]
    with transaction.atomic():
        locked = _lock(game)
        _record(locked, snapshots.current(locked), events)
    return locked


def _lock(game: Game) -> Game:
    return Game.objects.select_for_update().get(pk=game.pk)


def _record(
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
    appended only then: one statement on PostgreSQL (games.single_statement). If another
    append got there first, this raises GameMovedOn (or the unique (game, seq)
    IntegrityError) and the caller's transaction writes nothing. Must run inside one, or
    inside ``atomic_claim()`` when the caller writes nothing else.
    ``seats``: the game's seats in play order with their accounts, when the caller has
    read them. ``played``: the state after ``events``, when the engine decided them
    (``rules.play``): they are not checked again.
    """
    events = list(events)
    after = before.then(events, played)
    while after.state.round > 0 and after.state.needs_deal:
        deal = deal_round(after.state)
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


def open_game(settings: GameSettings, seats: Sequence[SeatSpec], created_by=None) -> Game:
    """Create a game with its settings and invite every player who has not joined yet.

    The game starts at once when ``settings.start_now`` or when nobody is waiting to
    accept; otherwise accept_seat() starts it when the last invited player joins.
    """
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
        game.save(
            update_fields=[
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
                _invite(seat)
        if settings.start_now or not invited:
            game = start_game(game)
    return game


def accept_seat(seat: Seat) -> Game:
    """Take an invited seat; start the game when it was the last one waiting."""
    with transaction.atomic():
        game = _lock(seat.game)
        seat = Seat.objects.select_for_update().get(pk=seat.pk)
        if seat.joined_at is None:
            seat.joined_at = timezone.now()
            seat.save(update_fields=["joined_at"])
        waiting = game.seats.filter(joined_at__isnull=True, is_bot=False).exists()
        if game.status == Game.Status.SETUP and not waiting:
            game = start_game(game)
    return game


def remind_invited(seat: Seat) -> None:
    """Send the invitation again to a player who has not accepted yet."""
    if seat.joined_at is not None or seat.is_bot:
        raise ValueError(f"{seat} has already joined: there is nothing to remind them of")
    _invite(seat, reminder=True)


def replace_invited(seat: Seat, name: str, email: str) -> Seat:
    """Give a seat whose player has not accepted to someone else, and invite them.

    The old player's link stops working (the seat's link is rotated).
    """
    with transaction.atomic():
        _lock(seat.game)
        seat = Seat.objects.select_for_update().get(pk=seat.pk)
        if seat.joined_at is not None or seat.is_bot:
            raise ValueError(f"{seat} has already joined: only an invited seat can be handed on")
        seat.name = name
        seat.email = email
        seat.user = None
        seat.save(update_fields=["name", "email", "user"])
        rotate_link(seat)
        _invite(seat)
    return seat


def _invite(seat: Seat, *, reminder: bool = False, fresh_link: bool = False) -> None:
    # The notifications app listens and writes the email, in this transaction.
    seat_invited.send(sender=Seat, seat=seat, reminder=reminder, fresh_link=fresh_link)


def claim_seats(user: User) -> int:
    """Give ``user`` every seat played under their address that has no account yet;
    return how many. Signing in by link proves the address is theirs."""
    return Seat.objects.filter(email__iexact=user.email, user__isnull=True).update(user=user)


def send_fresh_link(seat: Seat, address: str) -> bool:
    """Mail a fresh link to ``seat``'s address, if ``address`` is the seat's.

    The older links keep working until the fresh one is first used by a POST (see
    games.links): whoever asks cannot revoke the player's links. Asking again mails the
    same fresh link again. Returns whether it mailed; callers must not tell the visitor
    (that would reveal who plays in the game).
    """
    if seat.is_bot or not seat.email or seat.email.lower() != address.strip().lower():
        return False
    with transaction.atomic():
        seat = Seat.objects.select_for_update().get(pk=seat.pk)
        start_fresh_link(seat)
        _invite(seat, fresh_link=True)
    return True


# Deadlines. The game clock (games.clock) calls these; like every other
# change to a game they append events, so the history shows what the clock did.


def record_seen(seat: Seat, version: int) -> bool:
    """Record that ``seat``'s player saw their board at ``version`` (never beyond the
    game's own version, never backwards); return whether that was news."""
    return bool(
        Seat.objects.filter(
            pk=seat.pk, seen_version__lt=version, game__version__gte=version
        ).update(seen_version=version)
    )


def record_browser_time_zone(seat: Seat, name: str) -> None:
    """Keep the time zone ``seat``'s browser reported (a known zone name)."""
    Seat.objects.filter(pk=seat.pk).update(browser_time_zone=name)


def record_timeout(game: Game, seat: Seat, expected_version: int) -> Game:
    """Record that ``seat`` let its move's deadline pass.

    Counts the timeouts in a row; when the game's rule is "a bot plays" and the count
    reaches ``bot_takeover_after``, the bot keeps the seat (``seat_taken_by_bot``) until
    the player takes it back. The caller then has the bot play the turn (or, when the
    game waits, nothing more happens until the player moves).
    """
    with transaction.atomic():
        locked = _lock(game)
        if locked.version != expected_version or locked.seat_to_move != seat.position:
            raise GameMovedOn(expected_version, locked.version)
        seat = Seat.objects.select_for_update().get(pk=seat.pk)
        before = snapshots.current(locked)
        in_a_row = before.timeouts_in_a_row(seat.position) + 1
        events = [{"type": rules.TURN_TIMED_OUT, "seat": seat.position, "in_a_row": in_a_row}]
        takeover = (
            locked.on_timeout == Game.OnTimeout.BOT
            and not seat.autopilot
            and in_a_row >= locked.bot_takeover_after
        )
        if takeover:
            events.append({"type": rules.SEAT_TAKEN_BY_BOT, "seat": seat.position})
            seat.autopilot = True
        seat.timeouts_in_a_row = in_a_row
        seat.save(update_fields=["timeouts_in_a_row", "autopilot"])
        _record(locked, before, events)
    return locked


def take_seat_back(seat: Seat) -> Game:
    """The player takes their seat back from the bot that kept it after their timeouts."""
    with transaction.atomic():
        locked = _lock(seat.game)
        seat = Seat.objects.select_for_update().get(pk=seat.pk)
        if not seat.autopilot:
            return locked
        seat.autopilot = False
        seat.timeouts_in_a_row = 0
        seat.save(update_fields=["autopilot", "timeouts_in_a_row"])
        event = {"type": rules.SEAT_TAKEN_BACK, "seat": seat.position}
        _record(locked, snapshots.current(locked), [event])
    return locked


# Vacations. A player on vacation has their clock paused in every active game where they
# hold a seat: a clock_paused event when it begins (or when a game starts during it) and
# clock_resumed when it ends. games.projection adds the paused time to the deadline, so
# rebuild_projections derives the same deadline from the log.


class VacationError(ValueError):
    """A vacation that cannot be taken: none left, too long, or one already running."""


def start_vacation(user, days: int, now: datetime | None = None) -> datetime:
    """Start ``user``'s vacation of ``days`` days from ``now``; return when it ends.

    The days come off the allowance at once; end_vacation() gives back the whole days
    not used.
    """
    now = now or timezone.now()
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        if locked.vacation_until is not None and locked.vacation_until <= now:
            _end_vacation(locked, now)  # ran out but the scan has not ended it yet
        if locked.vacation_until is not None:
            raise VacationError(
                gettext("You are already on vacation: end it before starting another one.")
            )
        left = locked.vacation_days_left
        if not 1 <= days <= left:
            raise VacationError(
                ngettext(
                    "You have %(left)s vacation day left: choose between 1 and %(left)s.",
                    "You have %(left)s vacation days left: choose between 1 and %(left)s.",
                    left,
                )
                % {"left": left}
                if left
                else gettext("You have no vacation days left.")
            )
        locked.vacation_until = now + timedelta(days=days)
        locked.vacation_days_left -= days
        locked.save(update_fields=["vacation_until", "vacation_days_left"])
        pause_clocks(locked, now)
    user.vacation_until, user.vacation_days_left = locked.vacation_until, locked.vacation_days_left
    return locked.vacation_until


def end_vacation(user, now: datetime | None = None) -> int:
    """End ``user``'s vacation at ``now``, or when it ran out if that was earlier.

    Every clock it paused runs again from then. Returns the whole days given back to the
    allowance (a day begun counts as used). Ending a vacation twice does nothing more.
    """
    now = now or timezone.now()
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        returned = _end_vacation(locked, now)
    user.vacation_until, user.vacation_days_left = locked.vacation_until, locked.vacation_days_left
    return returned


def _end_vacation(user, now: datetime) -> int:
    if user.vacation_until is None:
        return 0
    ended = min(now, user.vacation_until)
    returned = (user.vacation_until - ended) // timedelta(days=1)
    user.vacation_until = None
    user.vacation_days_left += returned
    user.save(update_fields=["vacation_until", "vacation_days_left"])
    for seat in _active_seats(user):
        with transaction.atomic():
            game = _lock(seat.game)
            if clock_paused(game, seat.position):
                event = {
                    "type": rules.CLOCK_RESUMED,
                    "seat": seat.position,
                    "at": ended.isoformat(),
                }
                _record(game, snapshots.current(game), [event])
    return returned


def pause_clocks(user, now: datetime) -> int:
    """Pause ``user``'s clock in each active game where it is not paused yet; return how many.

    start_vacation() calls it; the deadline scan calls pause_clock() for each seat of a
    game that began during a vacation.
    """
    return sum(pause_clock(seat, now) for seat in _active_seats(user))


def pause_clock(seat: Seat, now: datetime) -> bool:
    """Pause the seat's clock at ``now`` if its game is active and the clock runs; return
    whether it did."""
    if clock_paused(seat.game, seat.position):
        return False  # the usual case: no need to lock the game
    with transaction.atomic():
        game = _lock(seat.game)
        if game.status != Game.Status.ACTIVE or clock_paused(game, seat.position):
            return False
        event = {"type": rules.CLOCK_PAUSED, "seat": seat.position, "at": now.isoformat()}
        _record(game, snapshots.current(game), [event])
    return True


def clock_paused(game: Game, position: int) -> bool:
    """Whether the seat's clock is paused now (its last clock event is a pause)."""
    last = (
        game.events.filter(type__in=rules.CLOCK_EVENTS, data__seat=position)
        .order_by("-seq")
        .first()
    )
    return last is not None and last.type == rules.CLOCK_PAUSED


def _active_seats(user) -> list[Seat]:
    return list(
        Seat.objects.filter(user=user, is_bot=False, game__status=Game.Status.ACTIVE)
        .select_related("game")
        .order_by("game_id", "position")
    )
