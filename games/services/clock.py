"""The game clock: deadlines and timeouts, vacations that pause it, and quiet hours.

The minute scan only reads (through partial indexes on the Game row's deadline) and hands
each due game to its own task; each task is idempotent, as a timeout is recorded under the
game's row lock with the version the scan saw.
"""

from __future__ import annotations

import logging
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.core.cache import caches
from django.db import transaction
from django.db.models import IntegerField, OuterRef, Subquery, Value
from django.db.models.fields.json import KT
from django.db.models.functions import Cast, Coalesce
from django.utils.translation import gettext, ngettext

from accounts.models import User
from games import rules
from games.derived import projection, snapshots
from games.derived import sleep as rules_sleep
from games.models import Event, Game, Seat
from games.services import plans
from games.services.autoplay import play_turn
from games.services.event_log import GameMovedOn, append_to_log, lock_game, seats_at_table
from helpers import clock_source

log = logging.getLogger(__name__)

# Per scan, so one scan never runs long; the rest wait for the next.
BATCH = 200


# The minute scan's last run, for the health check, in a cache every process shares.
LAST_SCAN_KEY = "games.clock.last_scan"


def record_scan(now: datetime) -> None:
    caches[settings.RAILMAIL_SHARED_CACHE].set(LAST_SCAN_KEY, now, timeout=None)


def last_scan() -> datetime | None:
    """When the minute scan last ran, if it ever did."""
    return caches[settings.RAILMAIL_SHARED_CACHE].get(LAST_SCAN_KEY)


def due_game_ids(now: datetime) -> list[int]:
    """The active games whose deadline has passed, the most overdue first."""
    due = Game.objects.filter(status=Game.Status.ACTIVE, deadline__lte=now).order_by("deadline")
    return list(due.values_list("pk", flat=True)[:BATCH])


def ended_vacations(now: datetime) -> list[int]:
    """The accounts whose vacation has run out (end_vacation ends each)."""
    ended = User.objects.filter(vacation_until__lte=now).order_by("vacation_until")
    return list(ended.values_list("pk", flat=True)[:BATCH])


def clocks_to_pause(now: datetime) -> list[int]:
    """The seats of players on vacation whose clock runs: games begun during the vacation."""
    last_clock_event = (
        Event.objects.filter(game=OuterRef("game"), type__in=rules.CLOCK_EVENTS)
        .annotate(seat=Cast(KT("data__seat"), IntegerField()))
        .filter(seat=OuterRef("position"))
        .order_by("-seq")
        .values("type")[:1]
    )
    seats = (
        Seat.objects.filter(
            user__vacation_until__gt=now, is_bot=False, game__status=Game.Status.ACTIVE
        )
        .annotate(last_clock=Coalesce(Subquery(last_clock_event), Value("")))
        .exclude(last_clock=rules.CLOCK_PAUSED)
        .order_by("pk")
    )
    return list(seats.values_list("pk", flat=True)[:BATCH])


def on_vacation(seat: Seat, now: datetime) -> bool:
    """Whether the seat's player is on vacation at ``now``: a guard beside the paused clock,
    so a game begun during the vacation never times out before the scan pauses it."""
    user = seat.user
    return bool(user and user.vacation_until and user.vacation_until > now)


def apply_deadline(game_id: int, now: datetime) -> str:
    """Apply the game's timeout rule if its deadline has passed; say what happened."""
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game_id)
        if game.deadline is None or game.deadline > now or game.status != Game.Status.ACTIVE:
            return "skipped"
        seat = game.seats.select_related("user").get(position=game.seat_to_move)
        if seat.is_bot or seat.autopilot:
            # Due at once by design: the bot plays, no timeout.
            play_turn(game, seat, game.version, reason="autopilot")
            return "bot moves"
        if on_vacation(seat, now):
            return "paused"
        if plans.play_turn(game, seat, game.version) is not None:
            # The plan's task was lost: the plan plays now.
            return "plan moves"
        game = record_timeout(game, seat, game.version)
        if game.on_timeout == Game.OnTimeout.WAIT:
            return "timeouts"
        seat.refresh_from_db()
        play_turn(game, seat, game.version, reason="timeout")
        return "timeouts"


def record_timeout(game: Game, seat: Seat, expected_version: int) -> Game:
    """Record that ``seat`` let its deadline pass; after ``bot_takeover_after`` in a row
    in a game where a bot plays, the bot keeps the seat until the player takes it back."""
    with transaction.atomic():
        locked = lock_game(game)
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
        append_to_log(locked, before, events, seats_at_table(locked))
    return locked


# Vacations pause the player's clock in every active game; the projection adds the time.


class VacationError(ValueError):
    """A vacation that cannot be taken: none left, too long, or one already running."""


def start_vacation(user, days: int, now: datetime | None = None) -> datetime:
    """Start ``user``'s vacation of ``days`` days; return when it ends. The days come off
    at once; end_vacation() gives back the whole days not used."""
    now = now or clock_source.now()
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
    """End ``user``'s vacation at ``now`` (or when it ran out); return the whole days given
    back, a day begun counting as used. Idempotent."""
    now = now or clock_source.now()
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
            game = lock_game(seat.game)
            if clock_paused(game, seat.position):
                event = {
                    "type": rules.CLOCK_RESUMED,
                    "seat": seat.position,
                    "at": ended.isoformat(),
                }
                append_to_log(game, snapshots.current(game), [event], seats_at_table(game))
    return returned


def pause_clocks(user, now: datetime) -> int:
    """Pause ``user``'s clock in each active game where it runs; return how many."""
    seats = _active_seats(user)
    for seat in seats:
        seat.user = user  # on vacation from now: this transaction has saved it
    return sum(pause_clock(seat, now) for seat in seats)


def pause_clock(seat: Seat, now: datetime) -> bool:
    """Pause the seat's clock if its player is on vacation and it runs; return whether it
    did. Idempotent."""
    if not on_vacation(seat, now) or clock_paused(seat.game, seat.position):
        return False  # the usual case: no need to lock the game
    with transaction.atomic():
        game = lock_game(seat.game)
        if game.status != Game.Status.ACTIVE or clock_paused(game, seat.position):
            return False
        event = {"type": rules.CLOCK_PAUSED, "seat": seat.position, "at": now.isoformat()}
        append_to_log(game, snapshots.current(game), [event], seats_at_table(game))
    return True


def clock_paused(game: Game, position: int) -> bool:
    """Whether the seat's last clock event is a pause."""
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


# Quiet hours and zone are recorded in each running game's log, so deadlines stay
# derived from the log.


def set_quiet_hours(seat: Seat, zone: str, start: time | None, end: time | None) -> Game:
    """Record ``seat``'s quiet hours in ``zone`` in its running game's log, if they change."""
    ZoneInfo(zone)  # a zone this system knows, or ZoneInfoNotFoundError (a ValueError)
    quiet = [at.strftime("%H:%M") if at else None for at in (start, end)]
    if None in quiet:
        quiet = [None, None]
    with transaction.atomic():
        game = lock_game(seat.game)
        if game.status != Game.Status.ACTIVE:
            return game
        rest = projection.sleep_of(game, seat.position, upto=game.version)
        now = rules_sleep.parse_quiet(*quiet)
        if (rest.zone, rest.quiet) == (zone, now):
            return game
        event = quiet_hours_event(seat, zone, quiet)
        append_to_log(game, snapshots.current(game), [event], seats_at_table(game))
    return game


def quiet_hours_changed(user) -> int:
    """Record ``user``'s quiet hours in every running game; return in how many they changed."""
    changed = 0
    for seat in _active_seats(user):
        before = seat.game.version
        after = set_quiet_hours(seat, user.timezone or "UTC", user.quiet_start, user.quiet_end)
        changed += after.version != before
    return changed


def quiet_hours_end(seat: Seat, now: datetime) -> datetime | None:
    """When ``seat``'s player's quiet hours end, if ``now`` is in them, else None; what
    waits for a player to wake (a notice, a nudge) waits until then."""
    if seat.is_bot:
        return None
    rest = projection.sleep_of(seat.game, seat.position, upto=seat.game.version)
    return rules_sleep.quiet_until(now, rest)


def newcomer_quiet_hours(game: Game, seat: Seat, newcomer: User | None) -> dict | None:
    """The ``quiet_hours_set`` event for ``seat``'s new player (their account's, else the
    game's zone and site's default), or None when the log says so already."""
    if newcomer is not None:
        zone = newcomer.timezone or "UTC"
        chosen = (newcomer.quiet_start, newcomer.quiet_end)
        quiet = [at.strftime("%H:%M") if at else None for at in chosen]
    else:
        zone = game.time_zone or "UTC"
        quiet = list(settings.RAILMAIL_QUIET_HOURS)
    if None in quiet or "" in quiet:
        quiet = [None, None]
    rest = projection.sleep_of(game, seat.position, upto=game.version)
    if (rest.zone, rest.quiet) == (zone, rules_sleep.parse_quiet(*quiet)):
        return None
    return quiet_hours_event(seat, zone, quiet)


# The quiet hours a new account starts with (accounts.models.User's defaults).
ACCOUNT_QUIET_HOURS = (time(22, 0), time(7, 0))


def account_quiet_hours(game: Game, seat: Seat) -> dict | None:
    """The ``quiet_hours_set`` event for the account's zone and hours, or None when they
    are what the game assumes without an account."""
    user = seat.user
    if user is None or seat.is_bot:
        return None
    zone = user.timezone or "UTC"
    chosen = (user.quiet_start, user.quiet_end)
    if zone == (game.time_zone or "UTC") and chosen == ACCOUNT_QUIET_HOURS:
        return None
    return quiet_hours_event(seat, zone, [at.strftime("%H:%M") if at else None for at in chosen])


def quiet_hours_event(seat: Seat, zone: str, quiet: list[str | None]) -> dict:
    """The ``quiet_hours_set`` event of ``seat``: ``quiet`` as "HH:MM" texts, both None
    (no quiet hours) when either is missing."""
    if None in quiet or "" in quiet:
        quiet = [None, None]
    return {
        "type": rules.QUIET_HOURS_SET,
        "seat": seat.position,
        "zone": zone,
        "start": quiet[0],
        "end": quiet[1],
    }
