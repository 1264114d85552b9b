"""Turn emails through a real Celery worker and the real Redis of this machine.

The worker (tests/real_worker.py) runs in a thread of the test process, on a queue of
the test's own in the Redis at REDIS_TEST_URL; the tests commit for real.
"""

import email
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from contextlib import contextmanager, suppress
from datetime import timedelta
from pathlib import Path

import pytest
import redis
from celery import Celery
from django.conf import settings
from django.core import mail
from django.db import connection, transaction
from django.utils import timezone

from games.models import Event
from notifications import compose, outbox, tasks
from notifications.models import Message
from pbem import celery_app
from tests.conftest import play_turn
from tests.factories import GameFactory, MessageFactory
from tests.faults import postgres_binaries, postgres_cluster
from tests.mail_servers import silent_server, smtp_server
from tests.real_worker import (
    NEEDS_WORKER,
    REDIS_URL,
    WAIT,
    Worker,
    celery_worker,
    transport_options,
    wait_for,
)

DELIVER = "notifications.tasks.deliver"

pytestmark = [*NEEDS_WORKER, pytest.mark.usefixtures("turn_emails_at_once")]


def deliveries(worker: Worker, message_id: int) -> list:
    """What each run of the delivery task for ``message_id`` returned."""
    return worker.results(DELIVER, (message_id,))


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
        # The row is marked sent just before the task returns: wait for its return too.
        wait_for(lambda: deliveries(worker, row.pk), "the delivery task to return")
        assert deliveries(worker, row.pk) == ["sent"]


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


def test_a_turn_email_goes_when_its_grace_ends_without_waiting_for_the_sweep(settings):
    settings.RAILMAIL_TURN_EMAIL_GRACE = 3
    with celery_worker() as worker:
        row = turn_email(GameFactory())
        # The move published one task that waits out the grace period on the broker.
        assert worker.queued(DELIVER) == [(row.pk,)]
        assert row.status == Message.Status.PENDING
        wait_for(lambda: sent(row), "the turn email once its grace has passed")
        assert row.sent_at >= row.created_at + timedelta(seconds=3) - outbox.EARLY
        assert row.sent_at < row.created_at + timedelta(seconds=30)  # not a minute's sweep
        assert [m.to for m in mail.outbox] == [[row.to]]


def test_a_move_whose_email_waits_for_the_next_sweep_publishes_nothing(settings):
    # The grace outlasts the sweep's period: the sweep before the email is due queues it.
    settings.RAILMAIL_TURN_EMAIL_GRACE = 8
    settings.RAILMAIL_MINUTE_JOBS_EVERY = 2
    with celery_worker() as worker:
        row = turn_email(GameFactory())
        assert worker.published == []  # the move made no round trip to the broker
        assert tasks.sweep_outbox()["due"] == 0
        assert worker.queued(DELIVER) == []  # not due within this sweep's period
        # The sweep in the period before it is due queues it, to wait out the rest.
        before = row.next_attempt_at - timedelta(seconds=1)
        assert tasks.sweep_outbox(before.isoformat())["due"] == 0
        assert worker.queued(DELIVER) == [(row.pk,)]
        wait_for(lambda: sent(row), "the turn email once its grace has passed")
        assert row.sent_at >= row.next_attempt_at - outbox.EARLY
        assert [m.to for m in mail.outbox] == [[row.to]]


def test_the_sweep_still_sends_a_turn_email_whose_task_was_lost(settings):
    settings.RAILMAIL_TURN_EMAIL_GRACE = 120
    with celery_worker() as worker:
        row = turn_email(GameFactory())
        early = row.next_attempt_at - timedelta(seconds=30)
        assert tasks.sweep_outbox(early.isoformat())["due"] == 0
        [waiting] = worker.queued(DELIVER)  # the countdown task, held for two minutes
        assert waiting == (row.pk,)
        # Say the broker lost it: once the row is due, the sweep queues it again.
        due = row.next_attempt_at.isoformat()
        assert tasks.sweep_outbox(due)["due"] == 1
        assert worker.queued(DELIVER)[-1] == (row.pk, due)  # on the real broker
        wait_for(lambda: sent(row), "the turn email once its grace has passed")
        assert [m.to for m in mail.outbox] == [[row.to]]


def test_a_task_that_runs_twice_sends_once():
    with celery_worker() as worker:
        game = GameFactory()
        row = turn_email(game)
        # The same row queued twice more, as a retry or a duplicate broker delivery would.
        tasks.deliver.delay(row.pk)
        tasks.deliver.delay(row.pk)
        wait_for(lambda: len(deliveries(worker, row.pk)) == 3, "three runs of the task")
        assert sorted(deliveries(worker, row.pk)) == ["not pending", "not pending", "sent"]
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
        wait_for(lambda: deliveries(worker, row.pk), "the task's redelivery")
    assert deliveries(worker, row.pk) == ["not pending"]
    assert mail.outbox == []
    row.refresh_from_db()
    assert row.status == Message.Status.SENDING and row.attempts == 1
    # Nothing sends it again by itself; the operator is told it is stuck.
    later = timezone.now() + outbox.STUCK_AFTER + timedelta(minutes=1)
    assert tasks.sweep_outbox(later.isoformat()) == {"released": 0, "due": 0, "stuck": 1}


# Issue 13: time limits. Celery enforces them in its prefork pool, the production one.


def start_prefork_worker(
    tmp_path: Path, queue: str, backend: str, concurrency: int = 1, **env
) -> subprocess.Popen:
    """A worker process (and its pool's processes) in a process group of its own, so that
    stop() or a test's SIGKILL ends all of them at once, as systemd or the OOM killer may."""
    db = settings.DATABASES["default"]
    environment = {
        **os.environ,
        "DATABASE_URL": (
            f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST'] or '127.0.0.1'}:"
            f"{db['PORT'] or 5432}/{db['NAME']}"
        ),
        "CELERY_BROKER_URL": REDIS_URL,
        "EMAIL_BACKEND": f"tests.notifications.worker_process.{backend}",
        "RAILMAIL_TEST_SENDING_MARKER": str(tmp_path / "sending"),
        "RAILMAIL_TEST_TRANSPORT_OPTIONS": json.dumps(transport_options(queue)),
        **env,
    }
    log = (tmp_path / "worker.log").open("w")
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "tests.notifications.worker_process",
         "worker", "--pool=prefork", f"--concurrency={concurrency}", "-Q", queue,
         "--loglevel=WARNING", "--without-mingle", "--without-gossip", "--without-heartbeat"],
        cwd=settings.BASE_DIR, env=environment, stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip


def row_not_yet_queued() -> Message:
    """A pending outbox row whose delivery the test queues itself."""
    from notifications import emails

    row = emails.login_link("ada@example.org", "https://railmail.example.org/l/t/")
    wait_for(lambda: Message.objects.filter(pk=row.pk).exists(), "the row")
    Message.objects.filter(pk=row.pk).update(
        status=Message.Status.PENDING, attempts=0, error="", sent_at=None
    )
    return row


@contextmanager
def publishing_to(queue: str):
    app = Celery("railmail-test-publisher", set_as_current=False)
    app.config_from_object("django.conf:settings", namespace="CELERY")
    app.conf.update(broker_url=REDIS_URL, task_always_eager=False, task_default_queue=queue)
    app.set_current()
    try:
        yield app
    finally:
        celery_app.set_current()
        celery_app.set_default()


def kill(process: subprocess.Popen) -> None:
    """SIGKILL the worker and its pool's processes at once."""
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=WAIT)


def stop(process: subprocess.Popen) -> None:
    kill(process)
    redis.Redis.from_url(REDIS_URL).delete(*transport_options_keys(process.args))


def transport_options_keys(args) -> list[str]:
    queue = args[args.index("-Q") + 1]
    keys = [v for k, v in transport_options(queue).items() if k.endswith("key")]
    return [queue, *keys, f"_kombu.binding.{queue}", f"_kombu.binding_permanent.{queue}"]


def test_the_soft_time_limit_ends_a_send_to_a_server_that_never_answers(tmp_path: Path):
    queue = f"railmail-test-{uuid.uuid4().hex}"
    with silent_server() as port:
        process = start_prefork_worker(
            tmp_path, queue, "SilentServerBackend", RAILMAIL_TEST_SMTP_PORT=str(port)
        )
        try:
            row = row_not_yet_queued()
            with publishing_to(queue):
                tasks.deliver.apply_async((row.pk,), soft_time_limit=2, time_limit=30)
            # The worker is free again, and the row is pending for a later retry.
            # One read of the row: two could see it before and after the claim.
            wait_for(
                lambda: Message.objects.filter(
                    pk=row.pk, status=Message.Status.PENDING, attempts=1
                ).exists(),
                "the soft time limit to release the row",
                timeout=60,
            )
            row.refresh_from_db()
            assert "SoftTimeLimitExceeded" in row.error
            assert process.poll() is None  # the worker lives on
        finally:
            stop(process)


def test_the_hard_time_limit_leaves_the_row_for_the_operator_who_is_told_once(
    tmp_path: Path, settings
):
    settings.ADMINS = [("Ops", "ops@example.org")]
    queue = f"railmail-test-{uuid.uuid4().hex}"
    process = start_prefork_worker(tmp_path, queue, "StubbornBackend")
    try:
        row = row_not_yet_queued()
        with publishing_to(queue):
            tasks.deliver.apply_async((row.pk,), soft_time_limit=1, time_limit=3)
        wait_for((tmp_path / "sending").exists, "the worker to start sending", timeout=60)
        wait_for(
            lambda: "Hard time limit" in (tmp_path / "worker.log").read_text(),
            "the hard time limit to kill the send",
            timeout=60,
        )
    finally:
        stop(process)
    row.refresh_from_db()
    assert row.status == Message.Status.SENDING  # it may have reached the server
    later = (timezone.now() + outbox.STUCK_AFTER).isoformat()
    assert tasks.sweep_outbox(later) == {"released": 0, "due": 0, "stuck": 1}
    assert tasks.sweep_outbox(later) == {"released": 0, "due": 0, "stuck": 1}
    told = [m for m in mail.outbox if m.to == ["ops@example.org"]]
    assert len(told) == 1 and f"row {row.pk}: login_link" in told[0].body


# Issue 33: a worker killed mid-batch strands only the rows on the wire.


def message_ids(raw_messages) -> list[str]:
    return [email.message_from_string(raw)["Message-ID"] for raw in raw_messages]


def test_a_worker_killed_mid_batch_leaves_only_the_rows_on_the_wire(tmp_path: Path, settings):
    settings.ADMINS = [("Ops", "ops@example.org")]
    queue = f"railmail-test-{uuid.uuid4().hex}"
    rows = MessageFactory.create_batch(60)
    ids = {compose.message_id(row): row.pk for row in rows}
    with smtp_server() as (port, server):
        # The server takes 9 emails, then hangs on every message (it has them, but does
        # not say so): each connection has one row on the wire when the worker dies.
        server.hang_after = 9
        smtp = {
            "EMAIL_BACKEND": "notifications.smtp.EmailBackend",
            "EMAIL_HOST": "127.0.0.1",
            "EMAIL_PORT": str(port),
            "EMAIL_TIMEOUT": "60",
        }
        process = start_prefork_worker(tmp_path, queue, "", concurrency=2, **smtp)
        try:
            with publishing_to(queue):
                # Two deliveries at once, each with its batch: 50 rows, then the other 10.
                tasks.deliver.delay(rows[0].pk)
                wait_for(lambda: len(server.hung) == 1, "the first batch to hang", timeout=60)
                tasks.deliver.delay(rows[-1].pk)
                wait_for(lambda: len(server.hung) == 2, "the second batch to hang")
            kill(process)  # SIGKILL, worker and pool, mid-batch
        finally:
            stop(process)
        status = dict(Message.objects.values_list("pk", "status"))
        on_the_wire = {ids[m] for m in message_ids(server.hung)}
        # In doubt: exactly the row on the wire of each of the two connections.
        assert {pk for pk, s in status.items() if s == "sending"} == on_the_wire
        assert server.sessions == 2 and len(on_the_wire) == 2
        assert {pk for pk, s in status.items() if s == "sent"} == {
            ids[m] for m in message_ids(server.received)
        }
        assert len(server.received) == 9
        # The other 49 were claimed, never handed over.
        assert Counter(status.values()) == {"sent": 9, "sending": 2, "claimed": 49}

        # A later sweep, once the dead worker's claims have run out, hands them to a new
        # worker, which sends each once.
        server.hang_after = None
        settings.EMAIL_BACKEND = smtp["EMAIL_BACKEND"]
        settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
        settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
        settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
        later = timezone.now() + outbox.CLAIM_LEASE
        with celery_worker():
            swept = tasks.sweep_outbox(later.isoformat())
            assert swept["due"] == 49
            wait_for(
                lambda: Message.objects.filter(status="sent").count() == 58,
                "the 49 rows never handed over to be sent",
                timeout=60,
            )
    sent = message_ids(server.received)
    assert len(sent) == len(set(sent)) == 58  # each once
    assert set(sent) == set(ids) - set(message_ids(server.hung))
    # The two on the wire are the operator's, told once, with their Message-IDs.
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    much_later = (timezone.now() + outbox.STUCK_AFTER).isoformat()
    assert tasks.sweep_outbox(much_later)["stuck"] == 2
    [told] = [m for m in mail.outbox if m.to == ["ops@example.org"]]
    assert all(m in told.body for m in message_ids(server.hung))


# Issue 33: a database restart mid-batch loses no answer and strands nothing. The database
# is a copy of the test's on a PostgreSQL cluster of the test's own, really stopped (every
# connection cut, new ones refused) and started again; the shared server is never touched.


@pytest.fixture
def own_postgres():
    """The test's database, copied to a cluster of its own that the test may stop."""
    with postgres_cluster() as cluster:
        cluster.copy_database(connection.settings_dict, "railmail_outage")
        # Every connection made from here on (the worker's too) goes to the copy.
        moved = {"HOST": "127.0.0.1", "PORT": cluster.port, "NAME": "railmail_outage"}
        saved = {key: connection.settings_dict[key] for key in moved}
        connection.close()
        connection.settings_dict.update(moved)
        try:
            yield cluster
        finally:
            connection.close()
            connection.settings_dict.update(saved)


def smtp_to(port: int) -> dict[str, str]:
    return {
        "EMAIL_BACKEND": "notifications.smtp.EmailBackend",
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(port),
        "EMAIL_TIMEOUT": "60",
    }


@pytest.mark.skipif(postgres_binaries() is None, reason="needs PostgreSQL's programs")
def test_a_database_restart_mid_batch_loses_no_answer_and_strands_nothing(
    tmp_path: Path, settings, own_postgres
):
    queue = f"railmail-test-{uuid.uuid4().hex}"
    rows = MessageFactory.create_batch(20)
    ids = {compose.message_id(row): row.pk for row in rows}
    with smtp_server() as (port, server):
        server.hang_after = 4  # the fifth email is on the wire when the database stops
        process = start_prefork_worker(tmp_path, queue, "", **smtp_to(port))
        try:
            with publishing_to(queue):
                tasks.deliver.delay(rows[0].pk)
            wait_for(lambda: len(server.hung) == 1, "the fifth email on the wire", timeout=60)
            own_postgres.stop()
            server.hang_after = None  # the server takes it while the database is away
            wait_for(lambda: len(server.received) == 5, "the server's answer")
            time.sleep(3)  # the worker holds the answer meanwhile
            own_postgres.start()
            connection.close()
            wait_for(
                lambda: not Message.objects.filter(status__in=["claimed", "sending"]).exists(),
                "the worker to write its answers and release the rest",
                timeout=60,
            )
            assert process.poll() is None  # it lives on
        finally:
            stop(process)
        assert "database away while" in (tmp_path / "worker.log").read_text()
        # Nothing in doubt: the answer given while the database was away was written
        # once it was back; the 15 never handed over are pending again, unattempted.
        status = dict(Message.objects.values_list("pk", "status"))
        assert Counter(status.values()) == {"sent": 5, "pending": 15}
        assert {pk for pk, s in status.items() if s == "sent"} == {
            ids[m] for m in message_ids(server.received)
        }
        assert set(Message.objects.filter(status="pending").values_list("attempts", flat=True)) == {
            0
        }

        # The next sweep sends them, each once.
        settings.EMAIL_BACKEND = "notifications.smtp.EmailBackend"
        settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
        settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
        settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
        with celery_worker():
            assert tasks.sweep_outbox()["due"] == 15
            wait_for(lambda: Message.objects.filter(status="sent").count() == 20, "the other 15")
    sent = message_ids(server.received)
    assert len(sent) == len(set(sent)) == 20 and set(sent) == set(ids)
