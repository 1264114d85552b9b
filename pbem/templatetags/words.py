"""Times in words, the same on every page and in every email.

    {% load words %}
    {{ game.time_per_move|duration }}          -> "2 days", "1 day, 6 hours"
    {% deadline game.deadline zone %}          -> "in 2 days, 3 hours (Tue 25 Nov, 18:00 CET)"

Built on Django's ``timesince`` (translated with the rest of Django) and the time zone
database: never a ``timedelta`` printed as "2 days, 0:00:00", never a deadline in UTC
when the reader lives elsewhere.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django import template
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.timesince import timesince

from games.time_zones import zone

register = template.Library()


@register.filter
def duration(value: timedelta | None) -> str:
    """A length of time in words, to two units: "2 days", "1 day, 6 hours"."""
    if not value:
        return ""
    now = timezone.now()
    return timesince(now - value, now, depth=2)


@register.simple_tag
def deadline(value: datetime | None, zone_name: str = "UTC", now: datetime | None = None) -> str:
    """When a move is due, from ``now``: "in 2 days, 3 hours (Tue 25 Nov, 18:00 CET)"."""
    if value is None:
        return ""
    when = local_time(value, zone_name)
    now = now or timezone.now()
    if value <= now:
        return f"now ({when})"
    return f"in {timesince(now, value, depth=2)} ({when})"


@register.filter
def local_time(value: datetime | None, zone_name: str = "UTC") -> str:
    """A moment as the reader's clock shows it: "Tue 25 Nov, 18:00 CET"."""
    if value is None:
        return ""
    local = timezone.localtime(value, zone(zone_name))
    return f"{date_format(local, 'D j M, H:i')} {local.tzname()}"
