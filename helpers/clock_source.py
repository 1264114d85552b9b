"""The one clock the games, their mail and their deadlines read: the wall clock, or a
simulated, faster one read from the file ``RAILMAIL_CLOCK_FILE`` names (the soak test), so
every process agrees on it without talking to the others.

Limits that guard real resources (task time limits, the broker's timeouts) stay on wall
time: spans compared with them convert through ``lasting`` and ``real_seconds``.
"""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.utils import timezone

# (the file's path, its mtime) -> (real, simulated, speed), read once per change.
_read: dict[tuple[str, int], tuple[float, float, float]] = {}


def _setting() -> tuple[float, float, float] | None:
    path = getattr(settings, "RAILMAIL_CLOCK_FILE", "")
    if not path:
        return None
    stamp = os.stat(path).st_mtime_ns
    key = (path, stamp)
    if key not in _read:
        with open(path, encoding="utf8") as file:
            data = json.load(file)
        _read.clear()
        _read[key] = (float(data["real"]), float(data["simulated"]), float(data["speed"]))
    return _read[key]


def now() -> datetime:
    """The current moment of the games' clock (aware, UTC)."""
    shared = _setting()
    if shared is None:
        return timezone.now()
    real, simulated, speed = shared
    return datetime.fromtimestamp(simulated + (time.time() - real) * speed, UTC)


def speed() -> float:
    """Seconds of the games' clock per second of wall time (1 unless a test speeds it)."""
    shared = _setting()
    return 1.0 if shared is None else shared[2]


def lasting(real: timedelta) -> timedelta:
    """The span of the games' clock that passes while ``real`` wall time does, to compare
    a wall-time limit (a claim's lease) on this clock."""
    return real * speed()


def real_seconds(span: timedelta) -> float:
    """The wall seconds ``span`` of the games' clock takes: a countdown for the broker."""
    return span.total_seconds() / speed()
