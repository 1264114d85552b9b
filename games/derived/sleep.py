"""When a turn's clock sleeps: the player's quiet hours in their zone, the table's weekend
pause, and vacations; and the moment a turn's time runs out with them left out.

Pure functions of moments (aware datetimes) and the rules that say when the clock sleeps,
so that the projection (games.derived.projection), the rebuild command and the tests all
count the same way. Precedence, where they overlap: a vacation, then the weekend, then
quiet hours (each block is left out once; the order says which one a moment is in).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

VACATION = "vacation"
WEEKEND = "weekend"
QUIET = "quiet"


@dataclass(frozen=True)
class Sleep:
    """When one seat's clock sleeps: ``quiet`` hours (start, end: local times; None for
    none) in ``zone``, the table's weekend pause (Saturday 00:00 to Monday 00:00 in
    ``weekend_zone``; None for none), and ``vacations``: (from, to) moments, those that
    have ended (``paused_now``: one still runs)."""

    zone: str = "UTC"
    quiet: tuple[time, time] | None = None
    weekend_zone: str | None = None
    vacations: tuple[tuple[datetime, datetime], ...] = ()
    paused_now: bool = False  # a vacation still running: the clock is stopped


def parse_quiet(start: str | None, end: str | None) -> tuple[time, time] | None:
    """Quiet hours from "HH:MM" texts; None when either is missing or they are equal."""
    if not start or not end:
        return None
    begin, finish = time.fromisoformat(start), time.fromisoformat(end)
    return None if begin == finish else (begin, finish)


def _local(day: date, at: time, zone: ZoneInfo) -> datetime:
    return datetime.combine(day, at, tzinfo=zone).astimezone(UTC)


def _quiet_spans(moment: datetime, sleep: Sleep) -> list[tuple[datetime, datetime]]:
    """The quiet spans around ``moment`` (those starting the local day before, that day,
    and the day after)."""
    if sleep.quiet is None:
        return []
    zone = ZoneInfo(sleep.zone)
    start, end = sleep.quiet
    today = moment.astimezone(zone).date()
    spans = []
    for offset in (-1, 0, 1):
        day = today + timedelta(days=offset)
        ends_on = day + timedelta(days=1) if end <= start else day
        spans.append((_local(day, start, zone), _local(ends_on, end, zone)))
    return spans


def _weekend_spans(moment: datetime, sleep: Sleep) -> list[tuple[datetime, datetime]]:
    if sleep.weekend_zone is None:
        return []
    zone = ZoneInfo(sleep.weekend_zone)
    today = moment.astimezone(zone).date()
    saturday = today - timedelta(days=(today.weekday() - 5) % 7)
    spans = []
    for weeks in (0, 1):
        first = saturday + timedelta(weeks=weeks)
        spans.append(
            (_local(first, time(0), zone), _local(first + timedelta(days=2), time(0), zone))
        )
    return spans


def spans_at(moment: datetime, sleep: Sleep) -> list[tuple[str, datetime, datetime]]:
    """Every sleeping span near ``moment``, in precedence order, with its kind."""
    return [
        *((VACATION, a, b) for a, b in sleep.vacations),
        *((WEEKEND, a, b) for a, b in _weekend_spans(moment, sleep)),
        *((QUIET, a, b) for a, b in _quiet_spans(moment, sleep)),
    ]


def asleep(moment: datetime, sleep: Sleep) -> str | None:
    """Why the clock sleeps at ``moment`` (VACATION, WEEKEND or QUIET, by precedence), or
    None when it runs."""
    for kind, start, end in spans_at(moment, sleep):
        if start <= moment < end:
            return kind
    return None


def wake(moment: datetime, sleep: Sleep) -> datetime:
    """The first moment from ``moment`` on when the clock runs."""
    for _guard in range(1000):
        ends = [end for _kind, start, end in spans_at(moment, sleep) if start <= moment < end]
        if not ends:
            return moment
        moment = max(ends)
    raise ValueError("the clock never wakes")


def run_clock(start: datetime, duration: timedelta, sleep: Sleep) -> datetime:
    """The moment at which ``duration`` of waking time has passed since ``start``: never
    inside a sleeping span (a turn that runs out at the start of one runs out then)."""
    moment, left = start, duration
    for _guard in range(100_000):
        moment = wake(moment, sleep)
        starts = [begin for _kind, begin, _end in spans_at(moment, sleep) if begin > moment]
        following = min(starts, default=None)
        if following is None or moment + left <= following:
            return moment + left
        left -= following - moment
        moment = following
    raise ValueError("the turn never runs out")


def vacations_from(clock_events: Sequence[tuple[str, datetime]], paused: str) -> list:
    """(from, to) spans from a seat's clock events in order (``paused``: the type that
    starts one); a span still open is left out (its clock is stopped)."""
    spans, since = [], None
    for kind, at in clock_events:
        if kind == paused:
            since = since or at
        elif since is not None:
            spans.append((since, at))
            since = None
    return spans
