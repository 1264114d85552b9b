"""Seats and the people in them: invitations, fresh links, accounts, what a player saw,
and taking a seat back from the bot that kept it."""

from django.db import transaction

from accounts.models import User
from games import rules
from games.derived import snapshots
from games.links import rotate_link, start_fresh_link
from games.models import Game, Seat
from games.services.event_log import append_to_log, lock_game
from games.signals import seat_invited


def remind_invited(seat: Seat) -> None:
    """Send the invitation again to a player who has not accepted yet."""
    if seat.joined_at is not None or seat.is_bot:
        raise ValueError(f"{seat} has already joined: there is nothing to remind them of")
    invite(seat, reminder=True)


def replace_invited(seat: Seat, name: str, email: str) -> Seat:
    """Give a seat whose player has not accepted to someone else, and invite them.

    The old player's link stops working (the seat's link is rotated).
    """
    with transaction.atomic():
        lock_game(seat.game)
        seat = Seat.objects.select_for_update().get(pk=seat.pk)
        if seat.joined_at is not None or seat.is_bot:
            raise ValueError(f"{seat} has already joined: only an invited seat can be handed on")
        seat.name = name
        seat.email = email
        seat.user = None
        seat.save(update_fields=["name", "email", "user"])
        rotate_link(seat)
        invite(seat)
    return seat


def invite(seat: Seat, *, reminder: bool = False, fresh_link: bool = False) -> None:
    """Have ``seat`` invited (again, or with a fresh link): the notifications app writes
    the email, in this transaction."""
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
        invite(seat, fresh_link=True)
    return True


# Deadlines. The game clock (games.services.clock) calls these; like every other
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


def take_seat_back(seat: Seat) -> Game:
    """The player takes their seat back from the bot that kept it after their timeouts."""
    with transaction.atomic():
        locked = lock_game(seat.game)
        seat = Seat.objects.select_for_update().get(pk=seat.pk)
        if not seat.autopilot:
            return locked
        seat.autopilot = False
        seat.timeouts_in_a_row = 0
        seat.save(update_fields=["autopilot", "timeouts_in_a_row"])
        event = {"type": rules.SEAT_TAKEN_BACK, "seat": seat.position}
        append_to_log(locked, snapshots.current(locked), [event])
    return locked
