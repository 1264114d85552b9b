"""The soak test's short form: a simulated day of play on the real stack, with every fault
of the week (benchmarks/soak.py, which runs the week: see benchmarks/README.md).

It runs the script as an operator does, in a process of its own: its own PostgreSQL
cluster and Redis server, gunicorn, a Celery worker and beat, the receiver and a mail
server, on loopback. The tables come from this run's test database (copied, not
migrated again: seconds saved).
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from tests.faults import postgres_binaries

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [
    pytest.mark.postgres,
    # The test database exists (its tables are copied); nothing is written to it.
    pytest.mark.django_db,
    pytest.mark.skipif(
        postgres_binaries() is None or shutil.which("redis-server") is None,
        reason="needs Debian's PostgreSQL programs and redis-server",
    ),
]


def test_a_day_of_play_survives_every_fault(tmp_path):
    database = settings.DATABASES["default"]
    source = (
        f"postgres://{database['USER'] or 'postgres'}@{database['HOST'] or '127.0.0.1'}:"
        f"{database['PORT'] or 5432}/{database['NAME']}"
    )
    counts_file = tmp_path / "soak.json"
    command = [
        sys.executable, "benchmarks/soak.py", "--days", "1", "--games", "6",
        "--minutes", "0.25", "--schema-from", source, "--json", str(counts_file),
    ]  # fmt: skip
    finished = subprocess.run(
        command, cwd=ROOT, env=dict(os.environ), capture_output=True, text=True, timeout=600
    )
    print(finished.stdout)  # the counts, for `pytest -s`
    assert counts_file.exists(), finished.stdout[-3000:] + finished.stderr[-3000:]
    counts = json.loads(counts_file.read_text())
    assert counts["failures"] == [], finished.stdout[-5000:]
    assert counts["drained"], finished.stdout[-3000:]
    assert finished.returncode == 0, finished.stderr[-3000:]
    assert counts["games replayed"] == counts["games"] == 6
    assert counts["rebuild_projections"] == ["0 game(s) differ."]
    # Every fault of the schedule happened.
    assert set(counts["faults"]) == {
        "worker", "smtp refuse", "postgres", "smtp hang", "redis", "smtp drop",
    }  # fmt: skip
    assert counts["your-turn emails due in the period"]["delivered once"] > 0
    # While PostgreSQL is away, pages and forms answer 503 with Retry-After; while Redis
    # (the rate limits, the broker) is away, the sign-in form answers as usual and its
    # email is sent once Redis is back.
    probes = {
        (outage, what): (status, retry) for outage, what, status, retry in counts["outage probes"]
    }
    assert probes[("postgres", "POST /accounts/login/")] == (503, "30")
    assert probes[("redis", "POST /accounts/login/")][0] == 302
    # Its email went to the mail server once Redis was back: delivered once, or on the
    # operator's list with its reason when the mail server cut the connection after the
    # message's end (it may have arrived: never sent twice).
    links = counts["sign-in links asked in outages"]
    assert links["asked"] >= 1
    assert links["delivered once"] + links["on the operator's list"] == links["asked"]
    # In doubt is only a message on the wire: one the mail server cut after its end (as its
    # own record says), or at most one a connection each time a worker died, the database
    # went or the mail server stopped; never more than one of a delivery (one connection).
    doubt = counts["in doubt (left 'sending', reported)"]
    assert doubt["cut by the mail server"] <= counts["mail server hung / cut sessions"][1]
    assert doubt["other"] <= doubt["other, at most"]
    assert doubt["most of one delivery"] <= 1
