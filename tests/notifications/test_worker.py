"""Turn emails through a real Celery worker and the real Redis of this machine.

The worker runs in a thread of the test process (celery.contrib.testing), with the
Redis broker at REDIS_TEST_URL (db 15 by default) and a queue of the test's own, so
parallel test processes never take each other's tasks. It reads the test database
through its own connection, so the tests commit for real (transaction=True).
"""

import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import pytest
import redis
from celery import Celery, signals
from celery.contrib.testing.worker import start_worker
from django.conf import settings
from django.core import mail
from django.db import transaction
from django.utils import timezone

import notifications.tasks  # noqa: F401  (registers the tasks with the test's app)
from games.models import Event
from notifications import outbox
from notifications.models import Message
from pbem import celery_app
from tests.conftest import play_turn
from tests.factories import GameFactory

REDIS_URL = os.getenv("REDIS_TEST_URL", "redis://127.0.0.1:6379/15")
DELIVER = "notifications.tasks.deliver"
WAIT = 20  # seconds: the longest any step may take before the test fails


def redis_is_up() -> bool:
    try:
        return redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping()
    except redis.RedisError:
        return False


# CI runs Redis (scripts/services-up): there, a missing Redis is a failure, not a skip.
# PostgreSQL only: the worker's threads need a database they all see as it is. SQLite's
# in-memory test database is shared between threads only by sharing one connection, which
# breaks once another thread (a live server in the same test process) has used it.
pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not redis_is_up() and os.getenv("CI") != "true",
        reason=f"needs Redis at {REDIS_URL} (start it with scripts/services-up)",
    ),
]


def wait_for(condition, what: str, timeout: float = WAIT):
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

    def deliveries(self, message_id: int) -> list:
        with self._lock:
            return [
                r
                for name, args, r in self.ran
                if name.endswith(".deliver") and args == (message_id,)
            ]


def transport_options(queue: str, visibility_timeout: int = 3600) -> dict:
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
def celery_worker(queue: str | None = None, visibility_timeout: int = 3600):
    """A worker on the test's own queue in Redis, in a thread of this process."""
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
        client.delete(queue, *keys)


def sent(message: Message) -> bool:
    message.refresh_from_db()
    return message.status == Message.Status.SENT


def turn_email(game) -> Message:
    """The your-turn outbox row of the game's latest version."""
    return Message.objects.get(game=game, kind="your_turn", event=f"v{game.version}")


def test_a_turn_email_goes_out_only_after_the_move_commits():
    with celery_worker() as worker:
        game = GameFactory()
        first = turn_email(game)
        wait_for(lambda: sent(first), "the first turn email")
        mail.outbox.clear()

        with transaction.atomic():
            game = play_turn(game)
            row = turn_email(game)
            # Written with the move, but not queued: the worker cannot have it yet.
            assert row.status == Message.Status.PENDING
            assert (DELIVER, (row.pk,)) not in worker.published
        assert (DELIVER, (row.pk,)) in worker.published

        wait_for(lambda: sent(row), "the turn email after the commit")
        assert [m.subject for m in mail.outbox] == [row.subject]
        assert mail.outbox[0].to == [row.to]
        assert worker.deliveries(row.pk) == ["sent"]


def test_a_move_that_rolls_back_sends_no_email():
    with celery_worker() as worker:
        game = GameFactory()
        wait_for(lambda: sent(turn_email(game)), "the first turn email")
        mail.outbox.clear()
        version, published = game.version, len(worker.published)

        with pytest.raises(RuntimeError), transaction.atomic():
            moved = play_turn(game)
            assert turn_email(moved).status == Message.Status.PENDING
            raise RuntimeError("the request failed after the move")
        assert not Event.objects.filter(game=game, seq__gt=version).exists()
        assert not Message.objects.filter(game=game, event=f"v{version + 1}").exists()
        assert len(worker.published) == published  # nothing was queued

        # A move that commits afterwards is delivered. The worker takes its queue in
        # order, one task at a time, so anything the rolled-back move had queued would
        # have run before it.
        game.refresh_from_db()
        game = play_turn(game)
        row = turn_email(game)
        wait_for(lambda: sent(row), "the committed move's email")
        assert [m.subject for m in mail.outbox] == [row.subject]
        assert Message.objects.filter(game=game, kind="your_turn").count() == 2


def test_a_task_that_runs_twice_sends_once():
    with celery_worker() as worker:
        game = GameFactory()
        row = turn_email(game)
        # The same row queued twice more, as a retry or a duplicate broker delivery would.
        outbox.queue(row.pk)
        outbox.queue(row.pk)
        wait_for(lambda: len(worker.deliveries(row.pk)) == 3, "three runs of the task")
        assert sorted(worker.deliveries(row.pk)) == ["not pending", "not pending", "sent"]
        row.refresh_from_db()
        assert row.status == Message.Status.SENT and row.attempts == 1
        assert [m.subject for m in mail.outbox] == [row.subject]


def test_a_worker_that_dies_mid_send_never_sends_twice(tmp_path: Path):
    queue = f"railmail-test-{uuid.uuid4().hex}"
    marker = tmp_path / "sending"
    db = settings.DATABASES["default"]
    env = {
        **os.environ,
        "DATABASE_URL": (
            f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST'] or '127.0.0.1'}:"
            f"{db['PORT'] or 5432}/{db['NAME']}"
        ),
        "CELERY_BROKER_URL": REDIS_URL,
        "EMAIL_BACKEND": "tests.notifications.worker_process.HangingBackend",
        "RAILMAIL_TEST_SENDING_MARKER": str(marker),
        "RAILMAIL_TEST_TRANSPORT_OPTIONS": json.dumps(transport_options(queue, 2)),
    }
    log = (tmp_path / "worker.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "tests.notifications.worker_process",
         "worker", "--pool=solo", "--concurrency=1", "-Q", queue, "--loglevel=WARNING",
         "--without-mingle", "--without-gossip", "--without-heartbeat"],
        cwd=settings.BASE_DIR, env=env,
        stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        # The test's own app publishes to the worker process's queue, with no worker here.
        app = Celery("railmail-test-publisher", set_as_current=False)
        app.config_from_object("django.conf:settings", namespace="CELERY")
        app.conf.update(broker_url=REDIS_URL, task_always_eager=False, task_default_queue=queue)
        app.set_current()
        game = GameFactory()
        row = turn_email(game)
        wait_for(marker.exists, "the worker process to start sending", timeout=60)
        row.refresh_from_db()
        assert row.status == Message.Status.SENDING
        process.send_signal(signal.SIGKILL)  # dies with the email half-sent
        process.wait(timeout=WAIT)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=WAIT)
        celery_app.set_current()
        celery_app.set_default()

    # The task was never acknowledged (acks_late): Redis gives it to the next worker
    # once the visibility timeout has passed. That worker must not send it again.
    with celery_worker(queue, visibility_timeout=2) as worker:
        wait_for(lambda: worker.deliveries(row.pk), "the task's redelivery")
    assert worker.deliveries(row.pk) == ["not pending"]
    assert mail.outbox == []
    row.refresh_from_db()
    assert row.status == Message.Status.SENDING and row.attempts == 1
    # Nothing sends it again by itself; the operator is told it is stuck.
    later = timezone.now() + outbox.STUCK_AFTER + timedelta(minutes=1)
    assert outbox.sweep(later) == {"requeued": 0, "stuck": 1}
