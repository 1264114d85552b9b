"""The minute's periodic jobs at 1,000 and at 100,000 active games (not a test).

    .venv/bin/python benchmarks/bench_scan.py [--sizes 1000,100000] [--runs 7]

Everything Celery beat runs each minute, taken together: ``games.tasks.scan_clock``,
``notifications.tasks.send_reminders_and_digests`` and ``notifications.tasks.sweep_outbox``,
with production settings against PostgreSQL (``BENCH_DATABASE_URL`` with ``_scan``
added to its database name, made afresh for each size) and Redis as the broker (db 11,
a queue of this benchmark's own, no worker): the tasks they hand work to are queued,
never run. Each size holds the same due work: 50 deadlines passed, 50 reminders come,
5 vacations run out, 5 clocks to pause (games begun during a vacation), 20 digests still
to send today, 5 outbox rows whose task was lost and 3 stuck mid-send. Everything else
(the games, three seats each, the ten events of a real game each, five sent emails each,
accounts, some on vacation, digest readers already sent today's digest) only grows with
the size. The rows are written with SQL (generate_series), which takes seconds.

It prints the median time of ``--runs`` runs for each size and their ratio, the number
of tasks queued and the time spent queueing them (in ``games.tasks.queue_each``, the
broker's round trips included), and for each query at the largest size its time as the
client saw it and EXPLAIN ANALYZE, which shows the index it reads.

Goal (issue 12): under 50 ms at 100,000 games, and under twice its time at 1,000.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from stack import fresh_database, production_env

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/railmail_bench"
REDIS = "redis://127.0.0.1:6379/11"
QUEUE = "bench_scan"  # a queue of our own on the benchmarks' Redis db: purged, not flushed
DUE = {"deadlines": 50, "reminders": 50, "ended": 5, "to_pause": 5, "digests": 20}

# Every row relative to :now (the moment the jobs run at), so each run does the same work.
BUILD_SQL = """
BEGIN;
INSERT INTO accounts_user (id, password, is_superuser, email, name, is_staff, is_active,
    date_joined, email_mode, reminders, timezone, vacation_days_left, vacation_until, language)
SELECT i, '!', false, 'u' || i || '@bench.test', 'User ' || i, false, true,
    :now - interval '90 days',
    CASE WHEN i % 50 = 0 THEN 'daily_digest' ELSE 'each_turn' END, true, 'UTC', 14,
    CASE WHEN i % 100 = 1 AND i <= 500 THEN :now - interval '1 hour'   -- ran out: 5
         WHEN i % 100 = 1 THEN :now + interval '3 days'                 -- on vacation
         ELSE NULL END, ''
FROM generate_series(1, :n) AS i;

INSERT INTO games_game (id, board, options, created_at, time_per_move, status, round,
    seat_to_move, deadline, version, scores, finished_at, created_by_id, bot_takeover_after,
    on_timeout, reminder_hours, title, log_digest, remind_at, thread_token, time_zone,
    language)
SELECT i, 'transamerica', '{}', :now - interval '3 days', interval '48 hours', 'active', 1,
    :mover, d.deadline, CASE WHEN :paused THEN 11 ELSE 10 END, '[13, 13, 13]', NULL, i, 3,
    'bot', '[24, 2]', '', md5(i::text),
    CASE WHEN i <= :due_deadlines THEN NULL
         WHEN i <= :due_deadlines + :due_reminders THEN :now - interval '30 seconds'
         WHEN d.deadline > :now + interval '24 hours' THEN d.deadline - interval '24 hours'
         WHEN d.deadline > :now + interval '2 hours' THEN d.deadline - interval '2 hours'
         ELSE NULL END,
    md5('thread' || i), 'UTC', 'en'
FROM generate_series(1, :n) AS i,
LATERAL (SELECT CASE WHEN i <= :due_deadlines THEN :now - i * interval '1 minute'
                     ELSE :now + interval '1 minute'
                          + (i::float / :n) * interval '47 hours' END AS deadline) AS d;

INSERT INTO games_seat (id, position, name, email, is_bot, link_nonce, joined_at, game_id,
    user_id, autopilot, bot_level, timeouts_in_a_row, seen_version, browser_time_zone,
    pending_link_nonce, language)
SELECT (i - 1) * 3 + p + 1, p, 'Seat ' || p,
    CASE WHEN p = :mover THEN 'u' || i || '@bench.test' ELSE 'g' || i || 's' || p || '@bench.test'
    END, false, 'nonce', :now - interval '3 days', i, CASE WHEN p = :mover THEN i END, false,
    '', 0, 0, '', '', ''
FROM generate_series(1, :n) AS i, generate_series(0, 2) AS p;

-- Every game has the same ten events, a real log (the account's seat is to move).
INSERT INTO games_event (seq, type, data, created_at, game_id)
SELECT e.seq, e.type, e.data::jsonb, :now - interval '3 days', i
FROM generate_series(1, :n) AS i, (VALUES :log) AS e(seq, type, data);

-- Players on vacation have their clock paused, but for the last 5 (their games began
-- during the vacation: the scan pauses those).
INSERT INTO games_event (seq, type, data, created_at, game_id)
SELECT 11, 'clock_paused', jsonb_build_object('seat', :mover, 'at', :now - interval '1 day'),
    :now - interval '1 day', i
FROM generate_series(1, :n) AS i
WHERE :paused;

INSERT INTO notifications_message (kind, "to", event, subject, body_text, body_html, headers,
    status, created_at, next_attempt_at, attempts, claimed_at, sent_at, provider_id, error,
    game_id, seat_id, facts, token, claim)
SELECT 'your_turn', 'g' || i || 's1@bench.test', 'v' || k, 'Your turn', 'text', '', '{}',
    'sent', :now - interval '2 days', :now - interval '2 days', 1, :now - interval '2 days',
    :now - interval '2 days', '', '', i, (i - 1) * 3 + 2, jsonb_build_object('version', k),
    md5('sent' || i || '-' || k), ''
FROM generate_series(1, :n) AS i, generate_series(1, 5) AS k;

-- Today's digest: sent to every reader but the last :due_digests ones.
INSERT INTO notifications_message (kind, "to", event, subject, body_text, body_html, headers,
    status, created_at, next_attempt_at, attempts, claimed_at, sent_at, provider_id, error,
    game_id, seat_id, facts, token, claim)
SELECT 'digest', 'u' || i || '@bench.test', to_char(:now AT TIME ZONE 'UTC', 'YYYY-MM-DD'),
    'Digest', 'text', '', '{}', 'sent', :now, :now, 1, :now, :now, '', '', NULL, NULL,
    jsonb_build_object('address', 'u' || i || '@bench.test'), md5('digest' || i), ''
FROM generate_series(1, :n) AS i
WHERE i % 50 = 0 AND i <= :n - 50 * :due_digests;

-- The outbox: rows just queued, rows whose task was lost, rows stuck mid-send.
INSERT INTO notifications_message (kind, "to", event, subject, body_text, body_html, headers,
    status, created_at, next_attempt_at, attempts, claimed_at, sent_at, provider_id, error,
    game_id, seat_id, facts, token, claim)
SELECT 'your_turn', 'g' || i || 's2@bench.test', 'v10', 'Your turn', 'text', '', '{}',
    CASE WHEN i <= 10 THEN 'pending' WHEN i <= 15 THEN 'pending' ELSE 'sending' END,
    :now - interval '30 minutes',
    CASE WHEN i <= 10 THEN :now ELSE :now - interval '10 minutes' END,
    CASE WHEN i <= 15 THEN 0 ELSE 1 END,
    CASE WHEN i > 15 THEN :now - interval '20 minutes' END, NULL, '', '', i, NULL,
    jsonb_build_object('version', 10), md5('outbox' || i), ''
FROM generate_series(1, 18) AS i;

SELECT setval(pg_get_serial_sequence('accounts_user', 'id'), :n);
SELECT setval(pg_get_serial_sequence('games_game', 'id'), :n);
SELECT setval(pg_get_serial_sequence('games_seat', 'id'), 3 * :n);
COMMIT;
VACUUM ANALYZE;
"""


def service_env(database_url: str) -> dict[str, str]:
    """Production settings, with the digests due at any hour."""
    return production_env(database_url, CELERY_BROKER_URL=REDIS, RAILMAIL_DIGEST_HOUR="0")


def real_log() -> tuple[str, int]:
    """The first ten events of a real game, as SQL VALUES, and the seat then to move."""
    sys.path.insert(0, str(ROOT))
    from games import bots, rules

    events = bots.simulate("transamerica", 3, random.Random(1))[:10]
    rows = []
    for event in events:
        data = {key: value for key, value in event.items() if key not in ("type", "seq")}
        text = json.dumps(data).replace("'", "''")
        rows.append(f"({event['seq']}, '{event['type']}', '{text}')")
    return ", ".join(rows), rules.replay(events).seat_to_move


def build(database_url: str, size: int, now: str, env: dict) -> float:
    """Make the database afresh, migrate it and write ``size`` games; return the seconds."""
    started = time.monotonic()
    fresh_database(database_url, env)
    log, mover = real_log()
    variables = {
        "paused": "(i % 100 = 1 AND i > 500 AND i <= :n - 100 * :due_to_pause)",
        "log": log,
        "mover": str(mover),
        "n": str(size),
        "now": f"'{now}'::timestamptz",
        **{f"due_{key}": str(value) for key, value in DUE.items()},
    }
    sql = BUILD_SQL
    for key in ["paused", *sorted(variables, key=len, reverse=True)]:
        sql = sql.replace(f":{key}", variables[key])
    done = subprocess.run(
        ["psql", database_url, "-q", "-v", "ON_ERROR_STOP=1"],
        input=sql,
        text=True,
        capture_output=True,
        timeout=900,
    )
    if done.returncode != 0:
        raise SystemExit(f"building the games failed:\n{done.stderr}")
    return time.monotonic() - started


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
    result = {"times": times, "queueing": queueing, "report": report, "queued": queued}
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
    now = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())
    results = {}
    for size in sizes:
        print(f"building {size:,} games ...", flush=True)
        seconds = build(database_url, size, now, env)
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
    print(f"\nqueries at {large:,} games (one run's time, from the client), EXPLAIN ANALYZE:")
    for item in results[large]["plans"]:
        print(f"\n{item['ms']:.2f} ms  {item['sql']}")
        for line in item["plan"]:
            print(f"    {line}")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--measure":
        sys.path.insert(0, str(ROOT))
        measure(sys.argv[2], int(sys.argv[3]), sys.argv[4] == "True")
    else:
        main()
