"""The daily digest: one email a day listing the games waiting on a player's move.

From RAILMAIL_DIGEST_HOUR (UTC) the minute scan finds, through partial indexes, the digest
readers who have a game waiting and no digest yet today, and hands each to its own task,
which writes the email (an outbox row unique per address and day).
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, F, OuterRef

from accounts.models import User
from games.models import Game, Seat
from notifications import emails
from notifications.models import Message

# Digest readers handed to tasks per scan; the rest wait a minute.
BATCH = 200


def _waiting(**filters):
    """Seats whose player is to move, played by the person (not a bot)."""
    return Seat.objects.filter(
        game__status=Game.Status.ACTIVE,
        game__seat_to_move=F("position"),
        is_bot=False,
        autopilot=False,
        **filters,
    )


def due_digests(now: datetime) -> list[int]:
    """The digest readers to send today's digest to, from the digest hour on."""
    if now.hour < getattr(settings, "RAILMAIL_DIGEST_HOUR", 7):
        return []
    sent = Message.objects.filter(kind="digest", event=emails.digest_key(now.date()))
    readers = (
        User.objects.filter(email_mode=User.EmailMode.DAILY_DIGEST)
        .filter(Exists(_waiting(user=OuterRef("pk"))))
        # NOT IN, not NOT EXISTS: the day's digests are read once (into a hash), not once
        # per reader.
        .exclude(email__in=sent.values("to"))
        .order_by("pk")
    )
    return list(readers.values_list("pk", flat=True)[:BATCH])


def waiting_seats(user_id: int) -> list[Seat]:
    """The seats of account ``user_id`` whose player is to move, soonest deadline first."""
    seats = _waiting(user_id=user_id).select_related("game", "user")
    return list(seats.order_by("game__deadline", "game_id"))


def send_digest(user_id: int, now: datetime) -> bool:
    """Send account ``user_id`` today's digest of the games waiting on their move."""
    user = User.objects.filter(pk=user_id, email_mode=User.EmailMode.DAILY_DIGEST).first()
    if user is None:
        return False
    seats = waiting_seats(user.pk)
    if not seats:
        return False
    with transaction.atomic():
        return emails.digest(user, seats, now.date()) is not None
