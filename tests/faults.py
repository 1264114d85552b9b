"""Real faults for tests: a broker that is down, a port where nothing listens, a
PostgreSQL server of the test's own that it stops and starts again.

Each is a real component failing for real on this machine's loopback (a connection
refused), never a mock of one.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from celery import Celery

from pbem import celery_app


def closed_port() -> int:
    """A loopback port where nothing listens (it was free a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def broker_down() -> Iterator[Celery]:
    """While in the block, tasks are queued (``.delay()``) to a Redis broker that is down.

    Queueing fails at once with kombu's OperationalError, as when the real broker has
    stopped: no retries, so the test stays quick.
    """
    app = Celery("railmail-test-broker-down", set_as_current=False)
    app.config_from_object("django.conf:settings", namespace="CELERY")
    app.conf.update(
        broker_url=f"redis://127.0.0.1:{closed_port()}/12",
        task_always_eager=False,
        task_publish_retry=False,
        broker_connection_retry=False,
        broker_connection_max_retries=0,
        broker_connection_timeout=1,
        result_backend=None,
    )
    app.set_current()
    app.set_default()
    try:
        yield app
    finally:
        celery_app.set_current()
        celery_app.set_default()


def postgres_binaries() -> Path | None:
    """Debian's PostgreSQL programs (initdb, pg_ctl), if installed."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    return found[-1].parent if found else None


@dataclass
class Cluster:
    """A PostgreSQL cluster of the test's own (never the machine's shared server, which
    other tests use): on loopback at ``port``, trusting user postgres."""

    directory: Path
    port: int
    binaries: Path

    def run(self, program: str, *args: str) -> None:
        # PostgreSQL refuses to run as root: as the postgres user then.
        as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run(
            [*as_postgres, str(self.binaries / program), *args],
            check=True,
            capture_output=True,
            timeout=60,
        )

    def start(self) -> None:
        self.run(
            "pg_ctl", "-D", str(self.directory / "data"), "-l", str(self.directory / "log"),
            "-w", "-o", f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1",
            "start",
        )  # fmt: skip

    def stop(self) -> None:
        """Stop it as a restart does: every connection is cut, new ones are refused."""
        self.run("pg_ctl", "-D", str(self.directory / "data"), "-m", "fast", "-w", "stop")

    def copy_database(self, source: dict, name: str) -> None:
        """Create database ``name`` here as a copy (schema and rows) of the database of
        Django settings ``source`` (on another server)."""
        self.run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name)
        dump = subprocess.run(
            [str(self.binaries / "pg_dump"), "--no-owner", "-h", source["HOST"] or "127.0.0.1",
             "-p", str(source["PORT"] or 5432), "-U", source["USER"] or "postgres",
             source["NAME"]],
            check=True, capture_output=True, timeout=60,
        ).stdout  # fmt: skip
        subprocess.run(
            [str(self.binaries / "psql"), "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1",
             "-p", str(self.port), "-U", "postgres", "-d", name],
            input=dump, check=True, capture_output=True, timeout=60,
        )  # fmt: skip


@contextmanager
def postgres_cluster(port: int | None = None) -> Iterator[Cluster]:
    """A fresh PostgreSQL cluster of the test's own, started; stopped and removed after.
    On ``port`` if given (a caller that must name it before the cluster is up)."""
    binaries = postgres_binaries()
    if binaries is None:
        raise RuntimeError("PostgreSQL's programs are not installed (/usr/lib/postgresql)")
    directory = Path(tempfile.mkdtemp(prefix="railmail-pg-"))
    if os.geteuid() == 0:
        shutil.chown(directory, "postgres", "postgres")
    cluster = Cluster(directory, port or closed_port(), binaries)
    try:
        cluster.run(
            "initdb", "-D", str(directory / "data"), "-U", "postgres", "--auth=trust",
            "-E", "UTF8", "--no-sync", "--no-instructions",
        )  # fmt: skip
        cluster.start()
        yield cluster
    finally:
        with suppress(subprocess.CalledProcessError):  # not running
            cluster.stop()
        shutil.rmtree(directory, ignore_errors=True)
