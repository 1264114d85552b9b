"""Outbox delivery against building and sending the same emails without it (not a test).

    .venv/bin/python benchmarks/bench_outbox.py [--games 100] [--runs 3]

Production settings against PostgreSQL (``BENCH_DATABASE_URL`` with ``_outbox`` added
to its database name, made afresh) and a real SMTP server on loopback (aiosmtpd's Sink,
in a process of its own, which accepts and discards). Each game has three players and a
few moves played; its outbox then holds the your-turn email of the player to move and an
invitation reminder to each seat: ``4 * --games`` rows of two kinds.

- floor: the same emails built (gathered and drawn) from rows read beforehand with all
  they need, then sent through the same backend over one connection: no database (the
  benchmark checks that no query is made), no Celery.
- outbox: the delivery task of each row, as a worker runs it: claim the row and the
  others due with it, read them and their games, build each email, send them over one
  connection, record the results. Also each row alone (a worker woken for one row with
  nothing else due): one claim, read and write per email.

It prints the emails per second of each (median of ``--runs``), their ratios to the
floor, and the queries of one batch.

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
from pathlib import Path

from stack import fresh_database, production_env

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/railmail_bench"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def service_env(database_url: str, smtp_port: int) -> dict[str, str]:
    """Production settings, sending by SMTP to the benchmark's server."""
    env = production_env(
        database_url,
        CELERY_BROKER_URL="redis://127.0.0.1:6379/10",
        EMAIL_HOST="127.0.0.1",
        EMAIL_PORT=str(smtp_port),
        RAILMAIL_TURN_EMAIL_GRACE="0",
    )
    del env["EMAIL_BACKEND"]  # EMAIL_HOST chooses Django's SMTP backend
    return env


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


def floor(rows: list) -> float:
    """Build (gather and draw) and send the rows' emails over one connection, from rows
    read beforehand with all they need: emails per second. No query reaches the
    database (checked)."""
    from django.core.mail import get_connection
    from django.db import connection as database
    from django.test.utils import CaptureQueriesContext

    from notifications import compose, outbox

    # Once untimed, as the outbox's own runs are after it: what building the emails
    # rebuilds from the log (the boards their pictures draw) is then in the cache.
    for row in rows:
        compose.compose(row)
    with CaptureQueriesContext(database) as queries:
        started = time.perf_counter()
        connection = get_connection()
        connection.open()
        for row in rows:
            composed = compose.compose(row)
            row.subject, row.body_text = composed.subject, composed.text
            row.body_html, row.headers = composed.html, composed.headers
            email = outbox.build_email(row, composed.images)
            email.connection = connection
            email.send()
        connection.close()
        elapsed = time.perf_counter() - started
    if queries.captured_queries:
        raise SystemExit(f"the floor queried the database: {queries.captured_queries[0]}")
    return len(rows) / elapsed


def delivered(ids: list[int], along: int) -> float:
    """Run each row's task as a worker does (it takes along up to ``along`` other rows
    that are due): emails per second."""
    from notifications import outbox
    from notifications.models import Message

    started = time.perf_counter()
    for pk in ids:
        outbox.deliver(pk, along=along)
    elapsed = time.perf_counter() - started
    unsent = Message.objects.filter(pk__in=ids).exclude(status=Message.Status.SENT)
    if unsent.exists():
        raise SystemExit(f"not sent: {list(unsent.values_list('pk', 'status', 'error')[:5])}")
    return len(ids) / elapsed


def child(games: int, runs: int) -> None:
    import django

    django.setup()
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from notifications import outbox
    from notifications.models import Message

    ids = build_games(games)
    # Read as the delivery task reads them.
    rows = outbox.with_what_emails_read(Message.objects.filter(pk__in=ids))
    for row in rows:
        row.stopped = False
    kinds = sorted({row.kind for row in rows})
    print(f"{len(ids)} emails ({', '.join(kinds)}) to an SMTP server on loopback")

    floors, batched, single = [], [], []
    for _ in range(runs):
        floors.append(floor(rows))
        reset(ids)
        batched.append(delivered(ids, along=outbox.BATCH - 1))
        reset(ids)
        single.append(delivered(ids, along=0))
        reset(ids)
    # Only one batch due: its queries, and those of the tasks of the rows it took along.
    Message.objects.filter(pk__in=ids[outbox.BATCH :]).update(status=Message.Status.SENT)
    with CaptureQueriesContext(connection) as queries:
        delivered(ids[: outbox.BATCH], along=outbox.BATCH - 1)
    base = statistics.median(floors)
    print(f"floor (build and send over one connection, no database): {base:6.0f}/s")
    for name, figures in (
        (f"outbox, a task takes along up to {outbox.BATCH - 1} rows due", batched),
        ("outbox, one row a task (nothing else due)", single),
    ):
        rate = statistics.median(figures)
        print(f"{name + ':':56} {rate:7.0f}/s  ratio {rate / base:.2f} (goal >= 0.50)")
    print(f"queries for {outbox.BATCH} rows due at once, and their {outbox.BATCH} tasks:")
    print(f"  {len(queries)}, of which the batch's own: the claim, then")
    for query in queries.captured_queries[1:6]:
        print("  ", query["sql"][:100])


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
        fresh_database(database_url, env)
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
