"""Reminders before a move is due, found by the minute scan.

The next reminder is kept on the Game row (``remind_at``), so the scan reads only the
games whose reminder has come, through a partial index. A reminder is unique per turn and
hour, so sending it twice sends it once.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction

from games.derived import projection, sleep
from games.models import Game
from games.services.clock import on_vacation
from notifications import emails
from notifications.models import Message

# Per scan, so one scan never runs long; the rest wait a minute.
BATCH = 200


def due_reminders(now: datetime) -> list[int]:
    """The games whose next reminder has come."""
    due = Game.objects.filter(remind_at__lte=now).order_by("remind_at")
    return list(due.values_list("pk", flat=True)[:BATCH])


def send_reminder(game_id: int, now: datetime) -> bool:
    """Send ``game_id``'s reminder due at ``now``, if any, and schedule its next one."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        return False
    running = game.status == Game.Status.ACTIVE and game.deadline and game.deadline > now
    if running:
        rest = projection.sleep_of(game, game.seat_to_move, upto=game.version)
        if sleep.asleep(now, rest) in (sleep.QUIET, sleep.WEEKEND):
            # Reminders wait for the player's quiet hours (or the weekend) to end.
            Game.objects.filter(pk=game.pk, version=game.version).update(
                remind_at=min(sleep.wake(now, rest), game.deadline)
            )
            return False
    sent = bool(running) and remind(game, now)
    later = [moment for moment in game.reminder_moments() if moment > now] if running else []
    # Only for the turn it was read at: a move meanwhile has scheduled its own.
    Game.objects.filter(pk=game.pk, version=game.version).update(
        remind_at=later[0] if later else None
    )
    return sent


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
    # Only hours that fit in a turn: 24 hours' notice of a 12-hour move would come at once.
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
