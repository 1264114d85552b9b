"""Real faults for tests: a broker that is down, a port where nothing listens.

Each is a real component failing for real on this machine's loopback (a connection
refused), never a mock of one.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager

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
