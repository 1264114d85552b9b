"""Times in words, the same on every page and in every email, in the reader's zone and
language: never a ``timedelta`` as "2 days, 0:00:00", never a deadline in UTC.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from babel import UnknownLocaleError
from babel.dates import format_datetime
from django import template
from django.conf import settings
from django.utils import timezone, translation
from django.utils.formats import date_format
from django.utils.timesince import timesince
from django.utils.translation import gettext, pgettext

from games.words import bot_levels
from games.words.time_zones import zone
from helpers import clock_source
from helpers.text import and_list

register = template.Library()


@register.filter
def duration(value: timedelta | None) -> str:
    """A length of time in words, to two units: "2 days", "1 day, 6 hours"."""
    if not value:
        return ""
    now = clock_source.now()
    return timesince(now - value, now, depth=2)


@register.simple_tag
def deadline(value: datetime | None, zone_name: str = "UTC", now: datetime | None = None) -> str:
    """When a move is due, from ``now``: "in 2 days, 3 hours (Tue 25 Nov, 18:00 CET)"."""
    if value is None:
        return ""
    when = local_time(value, zone_name)
    now = now or clock_source.now()
    if value <= now:
        return gettext("now (%(when)s)") % {"when": when}
    return gettext("in %(time)s (%(when)s)") % {
        "time": timesince(now, value, depth=2),
        "when": when,
    }


@register.filter
def local_time(value: datetime | None, zone_name: str = "UTC") -> str:
    """A moment as the reader's clock shows it: "Tue 25 Nov, 18:00 CET"."""
    if value is None:
        return ""
    local = timezone.localtime(value, zone(zone_name))
    return f"{when(local)} {zone_abbreviation(local)}"


def zone_abbreviation(local: datetime) -> str:
    """The zone's short name in the active language (CLDR: "MEZ" in German), else the zone
    database's ("EST") where CLDR has none and would give an offset."""
    language = translation.to_locale(translation.get_language() or settings.LANGUAGE_CODE)
    try:
        name = format_datetime(local, "zzz", locale=language)
    except (UnknownLocaleError, ValueError):
        name = ""
    return name if name.isalpha() else local.tzname()


@register.filter(expects_localtime=True)
def when(value: datetime | None) -> str:
    """A moment in the active language: "Tue 25 Nov, 18:00" (in a template, in the
    template's time zone; called from Python, in the zone ``value`` carries)."""
    if value is None:
        return ""
    # Translators: a date and time as Django's date filter writes it (D = weekday, j = day,
    # M = month, H:i = 24-hour time); put them in your language's order.
    return date_format(value, pgettext("date and time", "D j M, H:i"))


@register.filter
def ago(value: datetime | None, now: datetime | None = None) -> str:
    """How long ago, as people say it: "just now" within the first minute (never "0
    minutes ago"), else "5 minutes ago", "2 hours, 3 minutes ago"."""
    if value is None:
        return ""
    now = now or clock_source.now()
    if now - value < timedelta(minutes=1):
        return gettext("just now")
    return gettext("%(time)s ago") % {"time": timesince(value, now, depth=2)}


register.filter("and_list", and_list)
register.filter("bot_level", bot_levels.label)
