"""The minute's periodic jobs at 1,000 and at 100,000 active games (not a test).

    .venv/bin/python benchmarks/bench_scan.py [--sizes 1000,100000] [--runs 7]

Everything Celery beat runs each minute, taken together: ``games.tasks.scan_clock``,
``notifications.tasks.send_reminders_and_digests`` and ``notifications.tasks.sweep_outbox``,
with production settings against PostgreSQL (``BENCH_DATABASE_URL`` with ``_scan``
added to its database name, made afresh for each size) and Redis as the broker
(``BENCH_REDIS_URL``, default db 11, a queue of this benchmark's own, no worker): the
tasks they hand work to are queued, never run.

Every game is one the project wrote (benchmarks/background.py): six templates made as
players make them (the new-game form's defaults, a day a move, invitations accepted,
60 to 130 moves through the write path), and copies of their rows by the database
server, with their own ids, tokens, link nonces and addresses: the background, whose
deadlines and reminders are still to come, as most games' are. Each size holds the same
due work: 50 games whose deadline has passed and 50 whose reminder is due (copies of
templates moved back in time by whole days, which keeps every column what the project
would have written then); 5 vacations run out and 5 clocks to pause (a game begun
during a vacation), through the services' own start_vacation and new games; 20 readers
of a daily digest with a game waiting for them; the outbox rows the games above wrote
and no worker sent (lost tasks, for the sweep), 3 of them stuck mid-send. The jobs run
at the minute their ``now`` names: the one just after the moved-back reminders are due
(about 16 hours after the games were made), as if the benchmark had waited until then.

It prints the median time of ``--runs`` runs for each size and their ratio, the number
of tasks queued and the time spent queueing them (in ``games.tasks.queue_each``, the
broker's round trips included), and for each query at the largest size its time as the
client saw it and EXPLAIN ANALYZE, which shows the index it reads.

Goal (issue 12): under 50 ms at 100,000 games, and under twice its time at 1,000.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

from stack import fresh_database, production_env

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/railmail_bench"
REDIS = os.getenv("BENCH_REDIS_URL", "redis://127.0.0.1:6379/11")
QUEUE = "bench_scan"  # a queue of our own on the benchmarks' Redis db: purged, not flushed
DUE = {"deadlines": 50, "reminders": 50, "ended": 5, "to_pause": 5, "digests": 20}


def service_env(database_url: str) -> dict[str, str]:
    """Production settings, with the digests due at any hour."""
    return production_env(
        database_url,
        CELERY_BROKER_URL=REDIS,
        RAILMAIL_DIGEST_HOUR="0",
        PYTHONPATH=f"{ROOT}:{ROOT / 'benchmarks'}",
    )


def build(database_url: str, size: int, env: dict) -> tuple[float, str]:
    """Make the database afresh, migrate it and write ``size`` games; return the
    seconds it took and the moment the jobs are to run at."""
    started = time.monotonic()
    fresh_database(database_url, env)
    done = subprocess.run(
        [PYTHON, __file__, "--build", str(size)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=14400,
    )
    if done.returncode != 0:
        raise SystemExit(f"building the games failed:\n{done.stderr[-3000:]}")
    now = json.loads(done.stdout.strip().splitlines()[-1])["now"]
    return time.monotonic() - started, now


def make(size: int) -> None:
    """In a child process: the games and the due work (see the module's docstring)."""
    import django

    django.setup()
    import background
    import form_games
    from django.db import connection
    from django.utils import timezone

    from accounts.models import User
    from games import services
    from games.models import Game
    from notifications.models import Message

    templates = background.make_templates("t")
    made = timezone.now()
    running = Game.objects.filter(pk__in=templates, deadline__isnull=False, remind_at__isnull=False)
    deadlines = dict(running.values_list("pk", "deadline"))
    reminders = dict(running.values_list("pk", "remind_at"))
    if not deadlines:
        raise SystemExit("no template is running with a deadline and a reminder to come")
    day = timedelta(days=1)
    # The minute the jobs run at: just after the templates' reminders, moved back a day,
    # are due (a game's only reminder within a day a move comes 2 hours before its
    # deadline), as if the benchmark waited until then. The copies not moved back (the
    # background) have their reminders and deadlines still to come then.
    now = max(reminders.values()) - day + timedelta(minutes=1)
    if not made <= now < min(deadlines.values()) - day:
        raise SystemExit(f"no minute has every moved-back reminder due: {reminders}, {deadlines}")
    background.load(
        size - DUE["deadlines"] - DUE["reminders"],
        templates,
        report=lambda line: print(line, file=sys.stderr),
    )
    # Games played days ago: their deadline passed, or their reminder due.
    ticking = sorted(deadlines)
    for number in range(DUE["deadlines"]):
        template = ticking[number % len(ticking)]
        background.copy_games(template, 1, days_ago=days_until(deadlines[template], now))
    for number in range(DUE["reminders"]):
        background.copy_games(ticking[number % len(ticking)], 1, days_ago=1)
    # Vacations, through the services: ended (taken two days ago, for a day), and begun
    # an hour ago by players whose new game began since (the scan pauses their clocks).
    for number in range(DUE["ended"]):
        user = form_games.creator(f"away{number}")
        services.start_vacation(user, 1, now=made - 2 * day)
        form_games.played(form_games.new_game("transamerica", 3, True, f"away{number}"), 2)
    for number in range(DUE["to_pause"]):
        user = form_games.creator(f"pause{number}")
        services.start_vacation(user, 3, now=made - timedelta(hours=1))
        form_games.played(form_games.new_game("transeuropa", 4, True, f"pause{number}"), 2)
    # Readers of a daily digest (as their settings page sets it), a game each.
    for number in range(DUE["digests"]):
        user = form_games.creator(f"digest{number}")
        User.objects.filter(pk=user.pk).update(email_mode=User.EmailMode.DAILY_DIGEST)
        form_games.new_game("transamerica", 3, True, f"digest{number}")  # theirs to move
    # The outbox: the rows the games above wrote were never delivered (the benchmark has
    # no worker): their tasks are lost, and the sweep finds them. And 3 stuck mid-send,
    # their worker gone 20 minutes ago.
    pending = Message.objects.filter(status=Message.Status.PENDING, next_attempt_at__lte=now)
    stuck = list(pending.order_by("pk").values_list("pk", flat=True)[:3])
    Message.objects.filter(pk__in=stuck).update(
        status=Message.Status.SENDING, attempts=1, claimed_at=made - timedelta(minutes=20)
    )
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
        cursor.execute("CHECKPOINT")
    print(json.dumps({"now": now.isoformat(), "lost": pending.count(), "stuck": len(stuck)}))


def days_until(moment, now) -> int:
    """Whole days to move a game back by for ``moment`` to be past at ``now``."""
    return max(1, math.ceil((moment - now) / timedelta(days=1)))


# --- measuring (in a child process with the benchmark's settings) ------------------------


def measure(now: str, runs: int, explain: bool) -> None:
    import django

    django.setup()
    from django.db import connection

    import games.tasks
    import notifications.tasks
    from games.tasks import scan_clock
    from notifications.tasks import send_reminders_and_digests, sweep_outbox
    from pbem.celery import app

    app.conf.task_default_queue = QUEUE

    def purge() -> int:
        with app.connection_for_write() as conn:
            return conn.default_channel.queue_purge(QUEUE) or 0

    publishing = []
    queue_each = games.tasks.queue_each

    def timed_queue_each(*args, **kwargs):
        started = time.perf_counter()
        try:
            return queue_each(*args, **kwargs)
        finally:
            publishing.append(time.perf_counter() - started)

    # Every task the jobs hand out goes through it: timing it (not app.send_task) counts
    # the broker's round trip too, which a batch of publishes makes when it ends.
    games.tasks.queue_each = notifications.tasks.queue_each = timed_queue_each

    def minute() -> dict:
        return {**scan_clock(now), **send_reminders_and_digests(now), **sweep_outbox(now)}

    purge()
    report = minute()  # connects to the database and the broker
    queued = purge()
    times, queueing = [], []
    for _ in range(runs):
        publishing.clear()
        started = time.perf_counter()
        minute()
        times.append((time.perf_counter() - started) * 1000)
        queueing.append(sum(publishing) * 1000)
        purge()
    plans = []
    if explain:
        statements = []

        def record(execute, sql, params, many, context):
            started = time.perf_counter()
            try:
                return execute(sql, params, many, context)
            finally:
                if sql.lstrip().upper().startswith(("SELECT", "(SELECT")):
                    statements.append((sql, params, (time.perf_counter() - started) * 1000))

        with connection.execute_wrapper(record):
            minute()
        purge()
        with connection.cursor() as cursor:
            for sql, params, took in statements:
                cursor.execute("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) " + sql, params)
                plan = [row[0] for row in cursor.fetchall()]
                # The statement with its values, as the server ran it (whichever side binds).
                shown = connection.ops.compose_sql(sql, params)
                plans.append({"sql": shown, "plan": plan, "ms": took})
    import background

    result = {"times": times, "queueing": queueing, "report": report, "queued": queued}
    result["tables"] = background.sizes()
    print(json.dumps({**result, "plans": plans}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,100000", help="active games, comma-separated")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    base = os.getenv("BENCH_DATABASE_URL", DEFAULT_DB)
    database_url = base + "_scan"
    env = service_env(database_url)
    results = {}
    tables = {}
    for size in sizes:
        print(f"building {size:,} games ...", flush=True)
        seconds, now = build(database_url, size, env)
        print(f"  built in {seconds:.0f} s", flush=True)
        done = subprocess.run(
            [PYTHON, __file__, "--measure", now, str(args.runs), str(size == max(sizes))],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
            text=True,
            timeout=900,
        )
        results[size] = json.loads(done.stdout.strip().splitlines()[-1])
        tables[size] = results[size].pop("tables")
    print(f"\nthe minute's jobs, median of {args.runs} runs (tasks queued, not run):")
    for size, result in results.items():
        median = statistics.median(result["times"])
        queueing = statistics.median(result["queueing"])
        print(f"  {size:>9,} active games: {median:7.1f} ms   report {result['report']}")
        print(
            f"  {'':>9}  of which {queueing:.1f} ms queueing {result['queued']} tasks "
            f"({queueing / max(result['queued'], 1):.2f} ms each), {median - queueing:.1f} ms "
            "the rest (queries, Python)"
        )
    small, large = min(sizes), max(sizes)
    if small != large:
        ratio = statistics.median(results[large]["times"]) / statistics.median(
            results[small]["times"]
        )
        print(f"  {large:,} / {small:,} games: {ratio:.2f}x")
    for size, rows in tables.items():
        print(f"\nthe largest tables at {size:,} games:")
        for name, count, total in rows:
            print(f"  {name:<32} {count:>14} rows {total:>10}")
    print(f"\nqueries at {large:,} games (one run's time, from the client), EXPLAIN ANALYZE:")
    for item in results[large]["plans"]:
        print(f"\n{item['ms']:.2f} ms  {item['sql']}")
        for line in item["plan"]:
            print(f"    {line}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--build":
        sys.path.insert(0, str(ROOT))
        make(int(sys.argv[2]))
    elif len(sys.argv) == 5 and sys.argv[1] == "--measure":
        sys.path.insert(0, str(ROOT))
        measure(sys.argv[2], int(sys.argv[3]), sys.argv[4] == "True")
    else:
        main()
