"""The daily digest: one email a day listing the games waiting on a player's move.

Accounts choose it in ``User.email_mode``, addresses without one in
``MailPreference.digest``. A digest is unique per address and day, so sending twice sends
once.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, F, OuterRef, Q

from accounts.models import User
from games.models import Game, Seat
from notifications import emails
from notifications.models import MailPreference, Message

# Digest readers handed to tasks per scan; the rest wait a minute.
BATCH = 200


def _waiting(*conditions, **filters):
    """Seats whose player is to move, played by the person (not a bot)."""
    return Seat.objects.filter(
        *conditions,
        game__status=Game.Status.ACTIVE,
        game__seat_to_move=F("position"),
        is_bot=False,
        autopilot=False,
        **filters,
    )


def reads_digest(seat: Seat) -> bool:
    """Whether ``seat``'s player gets a daily digest instead of an email each turn."""
    if seat.user is not None:
        return seat.user.email_mode == User.EmailMode.DAILY_DIGEST
    return MailPreference.objects.filter(address=seat.email.lower(), digest=True).exists()


def due_digests(now: datetime) -> list[str]:
    """The addresses to send today's digest to, from the digest hour on."""
    if now.hour < getattr(settings, "RAILMAIL_DIGEST_HOUR", 7):
        return []
    # NOT IN, not NOT EXISTS: the day's digests are read once (into a hash), not once
    # per reader.
    sent = Message.objects.filter(kind="digest", event=emails.digest_key(now.date())).values("to")
    accounts = (
        User.objects.filter(email_mode=User.EmailMode.DAILY_DIGEST)
        .filter(Exists(_waiting(user=OuterRef("pk"))))
        .exclude(email__in=sent)
        .order_by("pk")
        .values_list("email", flat=True)
    )
    addresses = (
        MailPreference.objects.filter(digest=True)
        .filter(Exists(_waiting(user__isnull=True, email=OuterRef("address"))))
        .exclude(address__in=sent)
        .order_by("pk")
        .values_list("address", flat=True)
    )
    found = list(accounts[:BATCH])
    return found + list(addresses[: BATCH - len(found)])


def waiting_seats(address: str) -> list[Seat]:
    """The seats under ``address`` whose player is to move, soonest deadline first."""
    mine = Q(user__email=address) | Q(user__isnull=True, email=address)
    seats = _waiting(mine).select_related("game", "user")
    return list(seats.order_by("game__deadline", "game_id"))


def send_digest(address: str, now: datetime) -> bool:
    """Send ``address`` today's digest of the games waiting on their move."""
    seats = waiting_seats(address)
    if not seats or not reads_digest(seats[0]):
        return False
    with transaction.atomic():
        return emails.digest(address, now.date()) is not None
