"""A real Celery worker for tests, on the real Redis of this machine.

The worker runs in a thread of the test process (celery.contrib.testing), with the
Redis broker at REDIS_TEST_URL (db 15 by default) and a queue of the test's own, so
parallel test processes never take each other's tasks. It reads the test database
through its own connection, so the tests commit for real (transaction=True): mark a
module with ``pytestmark = NEEDS_WORKER``.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import redis
from celery import Celery, signals
from celery.contrib.testing.worker import start_worker

from pbem import celery_app

REDIS_URL = os.getenv("REDIS_TEST_URL", "redis://127.0.0.1:6379/15")
WAIT = 20  # seconds: the longest any step may take before the test fails


def redis_is_up() -> bool:
    """Whether the test Redis answers (within a second)."""
    try:
        return redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping()
    except redis.RedisError:
        return False


# CI runs Redis (scripts/services-up): there, a missing Redis is a failure, not a skip.
# PostgreSQL only: the worker's threads need a database they all see as it is. SQLite's
# in-memory test database is shared between threads only by sharing one connection, which
# breaks once another thread (a live server in the same test process) has used it.
NEEDS_WORKER = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not redis_is_up() and os.getenv("CI") != "true",
        reason=f"needs Redis at {REDIS_URL} (start it with scripts/services-up)",
    ),
]


def wait_for(condition: Callable[[], Any], what: str, timeout: float = WAIT) -> Any:
    """Poll ``condition`` until it is true, for at most ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if result := condition():
            return result
        time.sleep(0.05)
    raise AssertionError(f"Gave up after {timeout} s waiting for {what}")


class Worker:
    """What the test can see of the worker: the tasks published and those it ran."""

    def __init__(self, queue: str):
        self.queue = queue
        self.published: list[tuple[str, tuple]] = []
        self.ran: list[tuple[str, tuple, object]] = []
        self._lock = threading.Lock()

    def on_publish(self, sender=None, headers=None, body=None, routing_key=None, **kwargs):
        if routing_key == self.queue:
            with self._lock:
                self.published.append((headers["task"], tuple(body[0])))

    def on_postrun(self, sender=None, args=None, retval=None, **kwargs):
        with self._lock:
            self.ran.append((sender.name, tuple(args or ()), retval))

    def queued(self, task: str) -> list[tuple]:
        """The arguments of each ``task`` published to the queue, in order."""
        with self._lock:
            return [args for name, args in self.published if name == task]

    def runs(self, task: str) -> list[tuple[tuple, object]]:
        """(arguments, return value) of each run of ``task`` that finished, in order."""
        with self._lock:
            return [(args, result) for name, args, result in self.ran if name == task]

    def results(self, task: str, args: tuple) -> list:
        """The return values of the runs of ``task`` with ``args``."""
        return [result for ran, result in self.runs(task) if ran == args]


def transport_options(queue: str, visibility_timeout: int = 3600) -> dict:
    """Redis transport options whose bookkeeping keys belong to ``queue`` alone."""
    # Keys of the test's own for unacknowledged messages: restoring them after a
    # worker's death then never touches another test's messages in the same db.
    return {
        "visibility_timeout": visibility_timeout,
        # Look for messages to restore every second (kombu's default is every 100 s).
        "unacked_restore_interval": 1,
        "unacked_restore_throttle": 1,
        "unacked_key": f"{queue}-unacked",
        "unacked_index_key": f"{queue}-unacked-index",
        "unacked_mutex_key": f"{queue}-unacked-mutex",
    }


@contextmanager
def celery_worker(queue: str | None = None, visibility_timeout: int = 3600) -> Iterator[Worker]:
    """A worker on the test's own queue in Redis, in a thread of this process.

    While it runs, its app is the current one: tasks queued in the block (``.delay()``,
    from any thread) go to its queue. Import the tasks' modules first, to register them.
    """
    queue = queue or f"railmail-test-{uuid.uuid4().hex}"
    app = Celery("railmail-test", set_as_current=False)
    app.config_from_object("django.conf:settings", namespace="CELERY")
    app.conf.update(
        broker_url=REDIS_URL,
        task_always_eager=False,
        task_default_queue=queue,
        broker_transport_options=transport_options(queue, visibility_timeout),
        result_backend=None,
    )
    seen = Worker(queue)
    signals.after_task_publish.connect(seen.on_publish, weak=False)
    signals.task_postrun.connect(seen.on_postrun, weak=False)
    try:
        with start_worker(app, perform_ping_check=False, shutdown_timeout=WAIT):
            yield seen
    finally:
        signals.after_task_publish.disconnect(seen.on_publish)
        signals.task_postrun.disconnect(seen.on_postrun)
        # The rest of the suite queues through the project's app again.
        celery_app.set_current()
        celery_app.set_default()
        client = redis.Redis.from_url(REDIS_URL)
        keys = [v for k, v in transport_options(queue).items() if k.endswith("key")]
        # kombu's records of the queue's exchange (named after the queue) go too.
        bindings = [f"_kombu.binding.{queue}", f"_kombu.binding_permanent.{queue}"]
        client.delete(queue, *keys, *bindings)
