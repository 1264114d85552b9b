"""Outbox delivery against building and sending the same emails without it (not a test).

    .venv/bin/python benchmarks/bench_outbox.py [--games 100] [--runs 3]

Production settings against PostgreSQL (``BENCH_DATABASE_URL`` with ``_outbox`` added
to its database name, made afresh) and a real SMTP server on loopback (aiosmtpd's Sink,
in a process of its own, which accepts and discards). Each game has three players and a
few moves played; its outbox then holds the your-turn email of the player to move and an
invitation reminder to each seat: ``4 * --games`` rows of two kinds.

- floor: the same emails, gathered beforehand (untimed), then drawn (templates) and sent
  through the same backend, one connection per email as delivery does: no database, no
  Celery.
- outbox: ``notifications.outbox.deliver(id)`` for each row, what a worker's task runs:
  claim the row, read it and its game, build the email, send it, record the result.

It prints the emails per second of each (median of ``--runs``), their ratio, and the
queries one delivery makes.

Goal (issue 12): the outbox at least 1/2 of the floor.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/railmail_bench"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def service_env(database_url: str, smtp_port: int) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "RAILMAIL_", "ANYMAIL_", "EMAIL_", "CELERY_"))
    }
    env.update(
        RAILMAIL_ENV="production",
        SECRET_KEY="bench-" + "x" * 60,
        SITE_URL="https://bench.railmail.test",
        DATABASE_URL=database_url,
        CELERY_BROKER_URL="redis://127.0.0.1:6379/10",
        EMAIL_HOST="127.0.0.1",
        EMAIL_PORT=str(smtp_port),
        RAILMAIL_TURN_EMAIL_GRACE="0",
        DJANGO_SETTINGS_MODULE="pbem.settings",
        PYTHONPATH=str(ROOT),
        LOG_LEVEL="WARNING",
    )
    return env


def make_database(database_url: str, env: dict) -> None:
    name = urllib.parse.urlsplit(database_url).path.lstrip("/")
    admin = database_url.rsplit("/", 1)[0] + "/postgres"
    for sql in (f"DROP DATABASE IF EXISTS {name}", f"CREATE DATABASE {name}"):
        subprocess.run(["psql", admin, "-qc", sql], check=True, capture_output=True)
    subprocess.run(
        [PYTHON, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True, timeout=300
    )


# --- in the child process, with the benchmark's settings ----------------------------------


def build_games(count: int) -> list[int]:
    """``count`` games with a few moves each; return the outbox rows to deliver."""
    from django.db.models.signals import post_save

    from games import bots, services
    from notifications import emails
    from notifications.models import Message

    # Rows are delivered by the benchmark itself, not queued to a broker on commit.
    post_save.disconnect(sender=Message, dispatch_uid="notifications.queue_delivery")
    for number in range(count):
        players = [(f"Player {p}", f"g{number}p{p}@bench.test") for p in range(3)]
        game = services.start_game(services.create_game("transamerica", None, players))
        for _ in range(4):
            state = services.load_state(game)
            seat = game.seats.get(position=state.seat_to_move)
            game = services.submit_move(
                game, seat, bots.greedy_move(state, seat.position), game.version
            )
        for seat in game.seats.all():
            emails.invitation(seat, reminder=True)
    from games.models import Game

    live = Message.objects.filter(status=Message.Status.PENDING)
    # The your-turn emails of earlier turns would be dropped (cheaply): leave them out.
    current = {(pk, f"v{version}") for pk, version in Game.objects.values_list("pk", "version")}
    turns = live.filter(kind=emails.YOUR_TURN).values_list("pk", "game_id", "event")
    stale = [pk for pk, game, event in turns if (game, event) not in current]
    Message.objects.filter(pk__in=stale).update(status=Message.Status.SENT)
    return list(live.order_by("pk").values_list("pk", flat=True))


def reset(ids: list[int]) -> None:
    from django.utils import timezone

    from notifications.models import Message

    Message.objects.filter(pk__in=ids).update(
        status=Message.Status.PENDING, attempts=0, claimed_at=None, next_attempt_at=timezone.now()
    )


def floor(drafts: list) -> float:
    """Draw and send the gathered emails, no database: emails per second."""
    from notifications import compose, outbox
    from notifications.models import Message

    started = time.perf_counter()
    for pk, kind, to, draft in drafts:
        composed = compose.render(draft)
        row = Message(
            pk=pk,
            kind=kind,
            to=to,
            subject=composed.subject,
            body_text=composed.text,
            body_html=composed.html,
            headers=composed.headers,
        )
        outbox.build_email(row).send()
    return len(drafts) / (time.perf_counter() - started)


def delivered(ids: list[int]) -> float:
    """Deliver each row as a worker's task does: emails per second."""
    from notifications import outbox
    from notifications.models import Message

    started = time.perf_counter()
    for pk in ids:
        row = outbox.deliver(pk)
        if row is None or row.status != Message.Status.SENT:
            raise SystemExit(f"row {pk} was not sent: {row and (row.status, row.error)}")
    return len(ids) / (time.perf_counter() - started)


def child(games: int, runs: int) -> None:
    import django

    django.setup()
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from notifications import compose
    from notifications.models import Message

    ids = build_games(games)
    rows = Message.objects.select_related("game", "seat", "seat__user").filter(pk__in=ids)
    drafts = [(row.pk, row.kind, row.to, compose.gather(row)) for row in rows.order_by("pk")]
    assert all(draft is not None for *_, draft in drafts)
    kinds = sorted({kind for _, kind, _, _ in drafts})
    print(f"{len(ids)} emails ({', '.join(kinds)}) to an SMTP server on loopback")

    floors, outboxes = [], []
    for _ in range(runs):
        floors.append(floor(drafts))
        reset(ids)
        outboxes.append(delivered(ids))
        reset(ids)
    with CaptureQueriesContext(connection) as queries:
        delivered(ids[:1])
    print(f"floor (build and send, no database, no Celery): {statistics.median(floors):7.0f}/s")
    print(f"outbox (deliver each row as a worker does):     {statistics.median(outboxes):7.0f}/s")
    print(f"ratio: {statistics.median(outboxes) / statistics.median(floors):.2f} (goal >= 0.50)")
    print(f"queries per delivery: {len(queries)}")
    for query in queries.captured_queries:
        print("  ", query["sql"][:150])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.games, args.runs)
        return
    base = os.getenv("BENCH_DATABASE_URL", DEFAULT_DB)
    database_url = base + "_outbox"
    port = free_port()
    env = service_env(database_url, port)
    server = subprocess.Popen(
        [PYTHON, "-m", "aiosmtpd", "-n", "-l", f"127.0.0.1:{port}", "-c", "aiosmtpd.handlers.Sink"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        make_database(database_url, env)
        subprocess.run(
            [PYTHON, __file__, "--child", "--games", str(args.games), "--runs", str(args.runs)],
            env=env,
            check=True,
            timeout=1800,
        )
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
