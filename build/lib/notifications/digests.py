"""The daily digest: one email a day listing the games waiting on a player's move."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.db.models import F

from games.models import Game, Seat
from notifications import emails
from notifications.models import Message


def send_digests(now: datetime) -> int:
    """Once a day, from RAILMAIL_DIGEST_HOUR (UTC), each digest reader gets one email."""
    if now.hour < getattr(settings, "RAILMAIL_DIGEST_HOUR", 7):
        return 0
    today = now.date()
    already = Message.objects.filter(kind="digest", event=emails.digest_key(today)).values("to")
    waiting = (
        Seat.objects.filter(
            user__email_mode="daily_digest",
            game__status=Game.Status.ACTIVE,
            game__seat_to_move=F("position"),
            is_bot=False,
            autopilot=False,
        )
        .exclude(user__email__in=already)
        .select_related("user", "game")
        .order_by("user_id", "game__deadline")
    )
    by_user: dict = {}
    for seat in waiting:
        by_user.setdefault(seat.user, []).append(seat)
    for user, seats in by_user.items():
        with transaction.atomic():
            emails.digest(user, seats, today)
    return len(by_user)
