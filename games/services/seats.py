"""Seats and the people in them: invitations, fresh links, accounts, what a player saw,
and taking a seat back from the bot that kept it."""

from django.db import transaction
from django.utils.translation import gettext

from accounts.models import User
from games import rules
from games.derived import snapshots
from games.links import rotate_link, start_fresh_link
from games.models import Game, Seat
from games.services import plans
from games.services.event_log import append_to_log, lock_game, seats_at_table
from games.signals import seat_declined, seat_invited, turn_seen
from helpers import clock_source


def remind_invited(seat: Seat) -> None:
    """Send the invitation again to a player who has not accepted yet."""
    if seat.joined_at is not None or seat.is_bot:
        raise ValueError(f"{seat} has already joined: there is nothing to remind them of")
    invite(seat, reminder=True)


def replace_invited(seat: Seat, name: str, email: str) -> Seat:
    """Give a seat whose player has not accepted to someone else, and invite them; the
    old player's link dies."""
    with transaction.atomic():
        lock_game(seat.game)
        seat = Seat.objects.select_for_update().get(pk=seat.pk)
        if seat.joined_at is not None or seat.is_bot:
            raise ValueError(f"{seat} has already joined: only an invited seat can be handed on")
        seat.name = name
        seat.email = email
        seat.user = None
        seat.declined_at = None  # the newcomer has not answered yet
        seat.save(update_fields=["name", "email", "user", "declined_at"])
        plans.end_for_handover(seat)
        rotate_link(seat)
        invite(seat)
    return seat


class NotDeclined(ValueError):
    """An invitation that can no longer be declined; the message says why."""


def decline_seat(seat: Seat) -> bool:
    """The invited player says no; whether that was news. The seat then waits as if
    unanswered: its player may still join."""
    with transaction.atomic():
        game = lock_game(seat.game)
        seat = Seat.objects.select_for_update().get(pk=seat.pk)
        if seat.joined_at is not None or seat.is_bot:
            raise NotDeclined(gettext("You have already joined this game."))
        if game.status != Game.Status.SETUP:
            raise NotDeclined(gettext("The game has started: leave it from its board page."))
        if seat.declined_at is not None:
            return False
        seat.declined_at = clock_source.now()
        seat.save(update_fields=["declined_at"])
        seat_declined.send(sender=Seat, seat=seat)
    return True


def invite(seat: Seat, *, reminder: bool = False, fresh_link: bool = False) -> None:
    """Have ``seat`` invited: the notifications app writes the email, in this transaction."""
    seat_invited.send(sender=Seat, seat=seat, reminder=reminder, fresh_link=fresh_link)


def claim_seats(user: User) -> int:
    """Give ``user`` every seat under their address with no account yet: signing in by
    link proves the address is theirs."""
    return Seat.objects.filter(email__iexact=user.email, user__isnull=True).update(user=user)


def send_fresh_link(seat: Seat, address: str) -> bool:
    """Mail a fresh link to ``seat``'s address, if ``address`` is the seat's; whether it
    mailed, which callers must not tell the visitor (it would reveal who plays)."""
    if seat.is_bot or not seat.email or seat.email.lower() != address.strip().lower():
        return False
    with transaction.atomic():
        seat = Seat.objects.select_for_update().get(pk=seat.pk)
        start_fresh_link(seat)
        invite(seat, fresh_link=True)
    return True


def record_seen(seat: Seat, version: int) -> bool:
    """Record that ``seat``'s player saw their board at ``version``; whether that was news."""
    news = bool(
        Seat.objects.filter(
            pk=seat.pk, seen_version__lt=version, game__version__gte=version
        ).update(seen_version=version)
    )
    if news:
        transaction.on_commit(
            lambda: turn_seen.send(sender=Seat, seat=seat, version=version), robust=True
        )
    return news


def record_browser_time_zone(seat: Seat, name: str) -> None:
    """Keep the time zone ``seat``'s browser reported (a known zone name)."""
    Seat.objects.filter(pk=seat.pk).update(browser_time_zone=name)


def take_seat_back(seat: Seat) -> Game:
    """The player takes their seat back from the bot that kept it after their timeouts."""
    with transaction.atomic():
        locked = lock_game(seat.game)
        seat = Seat.objects.select_for_update().get(pk=seat.pk)
        if not seat.autopilot or not seat.email:
            return locked  # not on autopilot, or its player left (no one to take it)
        seat.autopilot = False
        seat.timeouts_in_a_row = 0
        # A substitute takes the seat handed over to them.
        seat.joined_at = seat.joined_at or clock_source.now()
        seat.save(update_fields=["autopilot", "timeouts_in_a_row", "joined_at"])
        event = {"type": rules.SEAT_TAKEN_BACK, "seat": seat.position}
        append_to_log(locked, snapshots.current(locked), [event], seats_at_table(locked))
    return locked
