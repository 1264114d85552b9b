"""When a turn's clock sleeps (quiet hours, the weekend pause, vacations) and when a turn
runs out with them left out.

Pure functions, so the projection, the rebuild and the tests count the same way. Where
spans overlap, a vacation wins, then the weekend, then quiet hours.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from itertools import islice
from zoneinfo import ZoneInfo

VACATION = "vacation"
WEEKEND = "weekend"
QUIET = "quiet"


@dataclass(frozen=True)
class Sleep:
    """When one seat's clock sleeps; ``vacations`` holds only ended ones."""

    zone: str = "UTC"
    quiet: tuple[time, time] | None = None
    weekend_zone: str | None = None
    vacations: tuple[tuple[datetime, datetime], ...] = ()
    paused_now: bool = False


def parse_quiet(start: str | None, end: str | None) -> tuple[time, time] | None:
    """Quiet hours from "HH:MM" texts; None when either is missing or they are equal."""
    if not start or not end:
        return None
    begin, finish = time.fromisoformat(start), time.fromisoformat(end)
    return None if begin == finish else (begin, finish)


def _local(day: date, at: time, zone: ZoneInfo) -> datetime:
    return datetime.combine(day, at, tzinfo=zone).astimezone(UTC)


def _quiet_from(moment: datetime, sleep: Sleep) -> Iterator[tuple[datetime, datetime]]:
    """The quiet spans from the one starting the local day before ``moment`` on, in order."""
    if sleep.quiet is None:
        return
    zone = ZoneInfo(sleep.zone)
    start, end = sleep.quiet
    day = moment.astimezone(zone).date() - timedelta(days=1)
    overnight = timedelta(days=1) if end <= start else timedelta(0)
    while True:
        yield _local(day, start, zone), _local(day + overnight, end, zone)
        day += timedelta(days=1)


def _weekends_from(moment: datetime, sleep: Sleep) -> Iterator[tuple[datetime, datetime]]:
    """The weekends from the one of ``moment``'s week (its last Saturday) on, in order."""
    if sleep.weekend_zone is None:
        return
    zone = ZoneInfo(sleep.weekend_zone)
    today = moment.astimezone(zone).date()
    saturday = today - timedelta(days=(today.weekday() - 5) % 7)
    while True:
        yield _local(saturday, time(0), zone), _local(saturday + timedelta(days=2), time(0), zone)
        saturday += timedelta(weeks=1)


def _quiet_spans(moment: datetime, sleep: Sleep) -> list[tuple[datetime, datetime]]:
    """The quiet spans starting the local day before ``moment``, that day and the next."""
    return list(islice(_quiet_from(moment, sleep), 3))


def _weekend_spans(moment: datetime, sleep: Sleep) -> list[tuple[datetime, datetime]]:
    return list(islice(_weekends_from(moment, sleep), 2))


def spans_at(moment: datetime, sleep: Sleep) -> list[tuple[str, datetime, datetime]]:
    """Every sleeping span near ``moment``, in precedence order, with its kind."""
    return [
        *((VACATION, a, b) for a, b in sleep.vacations),
        *((WEEKEND, a, b) for a, b in _weekend_spans(moment, sleep)),
        *((QUIET, a, b) for a, b in _quiet_spans(moment, sleep)),
    ]


def asleep(moment: datetime, sleep: Sleep) -> str | None:
    """Why the clock sleeps at ``moment``, or None when it runs."""
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


def quiet_until(moment: datetime, sleep: Sleep) -> datetime | None:
    """When the quiet hours around ``moment`` end, or None: the weekend and vacations
    pause the clock, not a player's notices."""
    ends = [end for start, end in _quiet_spans(moment, sleep) if start <= moment < end]
    return max(ends, default=None)


def run_clock(start: datetime, duration: timedelta, sleep: Sleep) -> datetime:
    """When ``duration`` of waking time has passed since ``start``; never inside a span."""
    moment, left = start, duration
    # Every sleeping span from ``start`` on, in one pass in the order they begin: which
    # kind a span is does not matter here, only that the clock sleeps.
    spans = heapq.merge(
        sorted(sleep.vacations), _quiet_from(start, sleep), _weekends_from(start, sleep)
    )
    for count, (begin, end) in enumerate(spans):
        if count == 100_000:
            raise ValueError("the turn never runs out")
        if begin > moment:
            if moment + left <= begin:
                return moment + left
            left -= begin - moment
            moment = begin
        moment = max(moment, end)
    return moment + left  # only vacations, all of them behind


def vacations_from(clock_events: Sequence[tuple[str, datetime]], paused: str) -> list:
    """(from, to) spans from a seat's clock events; one still open is left out."""
    spans, since = [], None
    for kind, at in clock_events:
        if kind == paused:
            since = since or at
        elif since is not None:
            spans.append((since, at))
            since = None
    return spans
