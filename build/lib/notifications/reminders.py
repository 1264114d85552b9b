"""Reminders before a move is due, found by the minute scan.

Deadlines live on the Game row, so the scan reads only games whose deadline is near. A
reminder is an outbox row unique per turn and hour: sending it twice sends it once.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction

from games.clock import on_vacation
from games.models import Game
from notifications import emails
from notifications.models import Message

# How far ahead of a deadline the scan looks for reminders. A reminder asked for further
# ahead than this is sent this long before the deadline.
REMINDER_WINDOW = timedelta(hours=getattr(settings, "RAILMAIL_REMINDER_WINDOW_HOURS", 72))
# Games looked at per scan, so one scan never runs for long; the rest wait a minute.
BATCH = 200


def send_due_reminders(now: datetime) -> int:
    """Send every reminder that has come due; return how many."""
    upcoming = Game.objects.filter(
        status=Game.Status.ACTIVE, deadline__gt=now, deadline__lte=now + REMINDER_WINDOW
    ).order_by("deadline")[:BATCH]
    return sum(remind(game, now) for game in upcoming)


def remind(game: Game, now: datetime) -> bool:
    """Send the reminder now due for the player to move, once per turn and hour."""
    seat = game.seats.select_related("user").get(position=game.seat_to_move)
    if (
        seat.is_bot
        or seat.autopilot
        or not seat.email
        or not emails.wants_reminders(seat)
        or on_vacation(seat, now)
    ):
        return False
    left = game.deadline - now
    allowed = game.time_per_move or timedelta(0)
    # Hours that have come, and that fit in a turn: 24 hours' notice of a 12-hour move
    # would arrive as the turn begins.
    due = [
        hours
        for hours in game.reminder_hours
        if timedelta(hours=hours) >= left and timedelta(hours=hours) < allowed
    ]
    if not due:
        return False
    hours = min(due)  # several came at once (the scan was down): only the nearest
    if Message.objects.filter(
        game=game, kind="reminder", event=emails.reminder_key(game, hours)
    ).exists():
        return False
    with transaction.atomic():
        emails.reminder(game, seat, hours)
    return True
