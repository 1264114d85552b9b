"""The games' one clock: the wall clock, or the simulated clock a test shares with every
process through a file (helpers.clock_source); and no other clock read anywhere."""

import ast
import json
import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from django.utils import timezone

from helpers import clock_source

ROOT = Path(__file__).resolve().parents[2]


def test_without_a_clock_file_it_is_the_wall_clock(settings):
    settings.RAILMAIL_CLOCK_FILE = ""
    before = timezone.now()
    assert before <= clock_source.now() <= timezone.now()
    assert clock_source.speed() == 1
    assert clock_source.lasting(timedelta(seconds=180)) == timedelta(seconds=180)
    assert clock_source.real_seconds(timedelta(minutes=2)) == 120


def test_a_clock_file_runs_every_reader_on_its_simulated_time(settings, tmp_path):
    path = tmp_path / "clock.json"
    start = datetime(2030, 1, 7, 8, 0, tzinfo=UTC)
    path.write_text(json.dumps({"real": time.time(), "simulated": start.timestamp(), "speed": 600}))
    settings.RAILMAIL_CLOCK_FILE = str(path)
    now = clock_source.now()
    # A moment after the file's, 600 times as fast as the wall clock.
    assert start <= now < start + timedelta(minutes=10)
    assert clock_source.lasting(timedelta(seconds=180)) == timedelta(hours=30)
    assert clock_source.real_seconds(timedelta(hours=1)) == 6
    # The test moves the clock: every reader sees it at its next call.
    later = start + timedelta(days=3)
    path.write_text(json.dumps({"real": time.time(), "simulated": later.timestamp(), "speed": 1}))
    bump = path.stat().st_mtime_ns + 1_000_000  # a new mtime, however coarse the file system's
    os.utime(path, ns=(bump, bump))
    assert later <= clock_source.now() < later + timedelta(minutes=1)


# Calls that read the wall clock. Durations (time.monotonic, time.perf_counter) are not
# moments: they measure wall-time limits (a task's budget), which stay real.
CLOCK_READS = {
    ("timezone", "now"),
    ("datetime", "now"),
    ("datetime", "utcnow"),
    ("datetime", "today"),
    ("date", "today"),
    ("time", "time"),
    ("timezone", "localdate"),
}


def clock_reads(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        # Called (timezone.now()) or passed as a default (default=timezone.now).
        named = isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
        if named and (node.value.id, node.attr) in CLOCK_READS:
            found.append(f"{node.value.id}.{node.attr} (line {node.lineno})")
    return found


def test_the_code_reads_no_clock_but_the_one_the_soak_test_moves():
    reads = {}
    for package in ("accounts", "games", "notifications", "helpers", "pbem"):
        for path in (ROOT / package).rglob("*.py"):
            relative = path.relative_to(ROOT)
            if "migrations" in relative.parts or relative == Path("helpers/clock_source.py"):
                continue
            if found := clock_reads(path.read_text()):
                reads[str(relative)] = found
    assert reads == {}


def test_the_guard_sees_a_clock_read():
    assert clock_reads("from django.utils import timezone\nx = timezone.now()\n")
    assert clock_reads("class M:\n    at = models.DateTimeField(default=timezone.now)\n")
    assert not clock_reads("from helpers import clock_source\nx = clock_source.now()\n")
