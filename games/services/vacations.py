"""Vacations: a player's clock paused in every active game where they hold a seat.

A clock_paused event when it begins (or when a game starts during it) and clock_resumed
when it ends. games.derived.projection adds the paused time to the deadline, so
rebuild_projections derives the same deadline from the log. Each change locks the game's
row first.
"""

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from accounts.models import User
from games import rules
from games.derived import snapshots
from games.models import Game, Seat
from games.services.event_log import append_to_log, lock_game


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
            game = lock_game(seat.game)
            if clock_paused(game, seat.position):
                event = {
                    "type": rules.CLOCK_RESUMED,
                    "seat": seat.position,
                    "at": ended.isoformat(),
                }
                append_to_log(game, snapshots.current(game), [event])
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
        game = lock_game(seat.game)
        if game.status != Game.Status.ACTIVE or clock_paused(game, seat.position):
            return False
        event = {"type": rules.CLOCK_PAUSED, "seat": seat.position, "at": now.isoformat()}
        append_to_log(game, snapshots.current(game), [event])
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
