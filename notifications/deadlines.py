"""The every-minute deadline scan: reminders before a move is due, the rule at the deadline.

Deadlines live on the Game row (an indexed column of its projection), so the scan reads
only games whose deadline is near or past, never every game. Each step is idempotent:
a reminder is an outbox row unique per turn and hour, a timeout an event recorded under
the game's row lock with the version the scan saw.
"""

import logging
from collections import Counter
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from accounts.models import User
from games import services
from games.autoplay import play_turn
from games.models import Game, Seat
from notifications import emails
from notifications.models import Message

log = logging.getLogger(__name__)

# How far ahead of a deadline the scan looks for reminders. A reminder asked for further
# ahead than this is sent this long before the deadline.
REMINDER_WINDOW = timedelta(hours=getattr(settings, "RAILMAIL_REMINDER_WINDOW_HOURS", 72))
# Games handled per scan, so one scan never runs for long; the rest wait a minute.
BATCH = 200


def scan(now: datetime | None = None) -> dict[str, int]:
    """Send due reminders and apply every passed deadline. Returns what it did."""
    now = now or timezone.now()
    report: Counter = Counter(vacations(now))
    upcoming = Game.objects.filter(
        status=Game.Status.ACTIVE, deadline__gt=now, deadline__lte=now + REMINDER_WINDOW
    ).order_by("deadline")[:BATCH]
    for game in upcoming:
        if remind(game, now):
            report["reminders"] += 1
    due = Game.objects.filter(status=Game.Status.ACTIVE, deadline__lte=now).order_by("deadline")
    for game_id in due.values_list("pk", flat=True)[:BATCH]:
        try:
            report[apply_deadline(game_id, now)] += 1
        except Exception:
            # One broken game must not stop the others' deadlines; it is retried next scan.
            log.exception("Deadline of game %s failed", game_id)
            report["errors"] += 1
    report["digests"] = send_digests(now)
    return dict(report)


def vacations(now: datetime) -> dict[str, int]:
    """End the vacations that have run out, and pause clocks in games begun during one.

    Both steps are idempotent: a vacation ends once (its resume is recorded at the moment
    it ran out, not at the scan's), and a clock already paused is not paused again.
    """
    report: Counter = Counter()
    for user in User.objects.filter(vacation_until__lte=now).order_by("pk")[:BATCH]:
        services.end_vacation(user, now)
        report["vacations ended"] += 1
    for user in User.objects.filter(vacation_until__gt=now).order_by("pk")[:BATCH]:
        paused = services.pause_clocks(user, now)
        if paused:
            report["clocks paused"] += paused
    return dict(report)


def on_vacation(seat: Seat, now: datetime) -> bool:
    # A second guard beside the paused clock (games.projection): a game that began during
    # the vacation has its clock paused by the scan's first step, but never times out first.
    user = seat.user
    return bool(user and user.vacation_until and user.vacation_until > now)


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
    key = f"v{game.version}-{hours}h"
    if Message.objects.filter(game=game, kind="reminder", event=key).exists():
        return False
    with transaction.atomic():
        emails.reminder(game, seat, hours)
    return True


def apply_deadline(game_id: int, now: datetime) -> str:
    """Apply the game's timeout rule if its deadline has passed; say what happened."""
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game_id)
        if game.deadline is None or game.deadline > now or game.status != Game.Status.ACTIVE:
            return "skipped"
        seat = game.seats.select_related("user").get(position=game.seat_to_move)
        if seat.is_bot or seat.autopilot:
            # Due at once by design (see games.projection): the bot plays, no timeout.
            play_turn(game, seat, game.version, reason="autopilot")
            return "bot moves"
        if on_vacation(seat, now):
            return "paused"
        game = services.record_timeout(game, seat, game.version)
        if game.on_timeout == Game.OnTimeout.WAIT:
            return "timeouts"
        seat.refresh_from_db()
        play_turn(game, seat, game.version, reason="timeout")
        return "timeouts"


def send_digests(now: datetime) -> int:
    """Once a day, from RAILMAIL_DIGEST_HOUR (UTC), each digest reader gets one email."""
    if now.hour < getattr(settings, "RAILMAIL_DIGEST_HOUR", 7):
        return 0
    today = now.date()
    already = Message.objects.filter(kind="digest", event=today.isoformat()).values("to")
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
