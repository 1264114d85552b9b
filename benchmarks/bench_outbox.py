"""Your-turn emails as players get them, delivered by a real worker (not a test).

    .venv/bin/python benchmarks/bench_outbox.py [--games 40] [--runs 3] [--before DIR]

Production settings against PostgreSQL (``BENCH_DATABASE_URL`` with ``_outbox`` added to
its database name, made afresh), Redis as the broker (``BENCH_REDIS_URL``, default db 10)
and a real SMTP server on loopback (aiosmtpd's Sink, in a process of its own, which
accepts and discards).

The games are made as players make them (benchmarks/form_games.py: the new-game form's
defaults, a day a move, invitations accepted, every move through the write path), on
both boards with 3 to 6 players, and played on to every phase: start markers, early and
late track, later rounds. The outbox then holds each game's your-turn email to the
player to move, written by the move that made it their turn; the other rows (the
invitations, earlier turns' emails) are set aside.

- worker: a Celery worker (``--pool solo``: one process) started for the run; the
  benchmark queues one delivery task per row, as the moves did, and times until every
  row is sent: emails a second per worker. A task takes along the other rows due with
  it (up to ``notifications.outbox.BATCH``), as in production.
- worker CPU: the CPU seconds the worker process spent meanwhile (``/proc``), an email:
  what a worker costs, read apart from the wall time, which on a shared machine is
  mostly other work's.
- the split: in a process of its own, each row's email built as the worker builds it
  (after what the worker loads when it starts, where the tree has notifications.warm),
  timed in three parts (CPU time): the picture of the board, the suggestions, the rest.
- floor: the same emails' SMTP sends alone (built beforehand, sent over one
  connection): what no email can cost less than.

With ``--before DIR`` (a worktree of an earlier commit with its own ``.venv``), the
worker and the split also run with that tree's code, in the same run on the same rows
(the schema must be the same), and the ratio of the two is printed. The two trees take
turns at going first, run after run.

Goal (issue 39): a your-turn email at most a third of the worker time of today's code.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

from stack import fresh_database, production_env

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve()
PYTHON = sys.executable
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/railmail_bench"
QUEUE = "bench_outbox"
# (board, players, moves played): every phase, the largest positions included.
SHAPES = [
    ("transamerica", 3, 1),
    ("transeuropa", 6, 3),
    ("transamerica", 4, 9),
    ("transeuropa", 5, 14),
    ("transamerica", 5, 30),
    ("transeuropa", 6, 45),
    ("transamerica", 3, 60),
    ("transeuropa", 4, 80),
    ("transamerica", 6, 110),
    ("transeuropa", 6, 130),
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def service_env(database_url: str, smtp_port: int, tree: Path) -> dict[str, str]:
    """Production settings for ``tree``'s code, sending by SMTP to the benchmark's server."""
    env = production_env(
        database_url,
        CELERY_BROKER_URL=os.getenv("BENCH_REDIS_URL", "redis://127.0.0.1:6379/10"),
        CELERY_TASK_DEFAULT_QUEUE=QUEUE,
        EMAIL_HOST="127.0.0.1",
        EMAIL_PORT=str(smtp_port),
        PYTHONPATH=f"{tree}:{HERE.parent}",
    )
    del env["EMAIL_BACKEND"]  # EMAIL_HOST chooses Django's SMTP backend
    return env


# --- in child processes, with the benchmark's settings ------------------------------------


def setup() -> None:
    import django

    django.setup()
    from pbem.celery import app

    app.conf.task_default_queue = QUEUE


def build(games: int, out: str) -> None:
    """Make the games; write the your-turn rows to deliver to ``out``."""
    setup()
    import form_games

    from games.models import Game
    from notifications import emails, tasks
    from notifications.models import Message

    # The benchmark queues the deliveries itself, when its worker runs.
    tasks.deliver_after_commit = lambda *args, **kwargs: None
    for number in range(games):
        board, players, moves = SHAPES[number % len(SHAPES)]
        moves += number // len(SHAPES)
        # The deal is random: a game over before its moves are played is set aside, and
        # one played a little less made instead.
        for attempt in range(8):
            game = form_games.new_game(board, players, True, f"o{number}x{attempt}")
            if form_games.played(game, moves).seat_to_move is not None:
                break
            moves = moves * 4 // 5
    current = {(pk, f"v{version}") for pk, version in Game.objects.values_list("pk", "version")}
    turns = Message.objects.filter(kind=emails.YOUR_TURN, status=Message.Status.PENDING)
    ids = [
        pk
        for pk, game, event in turns.values_list("pk", "game_id", "event")
        if (game, event) in current
    ]
    Message.objects.exclude(pk__in=ids).update(status=Message.Status.SENT)
    Path(out).write_text(json.dumps(sorted(ids)))


def reset(ids: list[int]) -> None:
    from django.utils import timezone

    from notifications.models import Message

    Message.objects.filter(pk__in=ids).update(
        status=Message.Status.PENDING,
        attempts=0,
        claimed_at=None,
        claim="",
        next_attempt_at=timezone.now(),
    )


def split(ids_file: str) -> None:
    """Build each row's email as the worker does, timing the picture, the suggestions
    and the rest; print the milliseconds an email as JSON. Also checks the emails."""
    setup()
    from notifications import board_picture, compose, outbox
    from notifications.models import Message

    try:
        from games.words import suggestions
    except ImportError:  # pragma: no cover - an older tree
        suggestions = None
    try:
        from notifications.warm import warm
    except ImportError:  # pragma: no cover - an older tree
        pass
    else:
        warm()  # as the worker does when it starts (pbem.celery), before its first task
    ids = json.loads(Path(ids_file).read_text())
    spent = {"picture": 0.0, "suggestions": 0.0}

    def timed(module, name: str, key: str) -> None:
        original = getattr(module, name)

        def wrapper(*args, **kwargs):
            started = time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                spent[key] += time.process_time() - started

        setattr(module, name, wrapper)

    timed(board_picture, "picture", "picture")
    timed(suggestions, "suggestions", "suggestions")
    rows = outbox.with_what_emails_read(Message.objects.filter(pk__in=ids))
    for row in rows:
        row.stopped = False
    built, started = 0, time.process_time()
    for row in rows:
        composed = compose.compose(row)
        if composed is None or not composed.images:
            raise SystemExit(f"row {row.pk}: no your-turn email with its picture")
        built += 1
    total = time.process_time() - started
    each = {key: value / built * 1000 for key, value in spent.items()}
    each["rest"] = total / built * 1000 - sum(each.values())
    print(json.dumps(each))


def floor(ids_file: str) -> None:
    """The emails built beforehand, then only sent over one SMTP connection: emails a
    second, as JSON."""
    setup()
    from django.core.mail import get_connection

    from notifications import compose, outbox
    from notifications.models import Message

    ids = json.loads(Path(ids_file).read_text())
    rows = outbox.with_what_emails_read(Message.objects.filter(pk__in=ids))
    emails = []
    for row in rows:
        row.stopped = False
        composed = compose.compose(row)
        row.subject, row.body_text = composed.subject, composed.text
        row.body_html, row.headers = composed.html, composed.headers
        emails.append(outbox.build_email(row, composed.images))
    started = time.perf_counter()
    connection = get_connection()
    connection.open()
    for email in emails:
        email.connection = connection
        email.send()
    connection.close()
    print(json.dumps(len(emails) / (time.perf_counter() - started)))


def queue(ids_file: str) -> None:
    """Reset the rows, queue one delivery task for each, wait until all are sent: print
    emails a second (from the first task queued to the last row sent) as JSON.

    The end is the last row's ``sent_at`` (the worker's clock is this machine's), not the
    poll that saw it: a poll every 50 ms would add up to 5 ms an email to ten emails that
    take a second."""
    setup()
    from django.db.models import Max
    from django.utils import timezone

    from notifications import tasks
    from notifications.models import Message

    ids = json.loads(Path(ids_file).read_text())
    reset(ids)
    queued_at = timezone.now()
    started = time.perf_counter()
    for pk in ids:
        tasks.deliver.delay(pk)
    rows = Message.objects.filter(pk__in=ids)
    while True:
        left = rows.exclude(status=Message.Status.SENT)
        if not left.exists():
            break
        in_hand = [Message.Status.PENDING, Message.Status.CLAIMED, Message.Status.SENDING]
        failed = left.exclude(status__in=in_hand)
        if failed.exists():
            raise SystemExit(f"not sent: {list(failed.values_list('pk', 'status', 'error'))}")
        if time.perf_counter() - started > 900:
            raise SystemExit("the worker did not send the emails within 15 minutes")
        time.sleep(0.05)
    last_sent = rows.aggregate(last=Max("sent_at"))["last"]
    print(json.dumps(len(ids) / (last_sent - queued_at).total_seconds()))


# --- the parent ---------------------------------------------------------------------------


def run(tree: Path, env: dict, what: str, ids_file: Path) -> object:
    python = tree / ".venv" / "bin" / "python"
    done = subprocess.run(
        [str(python), str(HERE), f"--{what}", str(ids_file)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if done.returncode:
        raise SystemExit(f"{tree}: --{what} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) process ``pid`` has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def with_worker(tree: Path, env: dict, ids_file: Path) -> tuple[float, float]:
    """Emails a second of one solo worker running ``tree``'s code, and the worker's CPU
    milliseconds an email."""
    python = tree / ".venv" / "bin" / "python"
    log = ids_file.with_suffix(".worker.log")
    with log.open("w") as out:
        worker = subprocess.Popen(
            [
                *(str(python), "-m", "celery", "-A", "pbem", "worker", "--pool", "solo"),
                *("-Q", QUEUE, "--without-heartbeat", "--without-gossip", "--without-mingle"),
                *("--loglevel", "INFO"),
            ],
            cwd=tree,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        # Timed from when the worker says it is ready (it has imported and connected).
        deadline = time.monotonic() + 120
        while "ready." not in log.read_text():
            if worker.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the worker did not start:\n{log.read_text()[-2000:]}")
            time.sleep(0.1)
        used = cpu_seconds(worker.pid)
        rate = run(tree, env, "queue", ids_file)
        count = len(json.loads(ids_file.read_text()))
        return rate, (cpu_seconds(worker.pid) - used) / count * 1000
    finally:
        worker.terminate()
        worker.wait(timeout=30)
        log.unlink(missing_ok=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--before", type=Path, help="a worktree of today's code, with .venv")
    for what in ("build", "split", "floor", "queue"):
        parser.add_argument(f"--{what}", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build:
        build(args.games, args.build)
        return
    for what, function in (("split", split), ("floor", floor), ("queue", queue)):
        if getattr(args, what):
            function(getattr(args, what))
            return
    database_url = os.getenv("BENCH_DATABASE_URL", DEFAULT_DB) + "_outbox"
    port = free_port()
    trees = {"now": ROOT}
    if args.before:
        trees = {"before": args.before.resolve(), **trees}
    envs = {name: service_env(database_url, port, tree) for name, tree in trees.items()}
    server = subprocess.Popen(
        [PYTHON, "-m", "aiosmtpd", "-n", "-l", f"127.0.0.1:{port}", "-c", "aiosmtpd.handlers.Sink"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    ids_file = Path(f"/tmp/bench-outbox-{os.getpid()}.json")
    try:
        fresh_database(database_url, envs["now"])
        print(f"building {args.games} games through the write path ...", flush=True)
        subprocess.run(
            [PYTHON, str(HERE), "--games", str(args.games), "--build", str(ids_file)],
            cwd=ROOT,
            env=envs["now"],
            check=True,
            timeout=1800,
        )
        count = len(json.loads(ids_file.read_text()))
        print(f"{count} your-turn emails, one per game, to an SMTP server on loopback")
        rates = {name: [] for name in trees}
        cpus = {name: [] for name in trees}
        parts = {name: [] for name in trees}
        floors = []
        for number in range(args.runs):
            floors.append(run(ROOT, envs["now"], "floor", ids_file))
            # Taking turns at going first: neither tree gets the quieter moment every time.
            order = list(trees) if number % 2 == 0 else list(reversed(trees))
            for name in order:
                rate, cpu = with_worker(trees[name], envs[name], ids_file)
                rates[name].append(rate)
                cpus[name].append(cpu)
                parts[name].append(run(trees[name], envs[name], "split", ids_file))
            line = ", ".join(
                f"{name} {rates[name][-1]:.2f}/s ({cpus[name][-1]:.0f} CPU ms)" for name in trees
            )
            print(f"run {number + 1} of {args.runs}: floor {floors[-1]:.0f}/s; {line}", flush=True)
        base = statistics.median(floors)
        print(f"\nmedian of {args.runs} runs; floor (the sends alone) {base:.0f} emails/s")
        print(
            f"{'code':<8} {'emails/s/worker':>16} {'ms/email':>9} {'CPU ms':>7} {'of floor':>9}"
            f" {'picture':>8} {'suggest.':>9} {'rest':>6}  (CPU ms an email, built in-process)"
        )
        for name in trees:
            rate = statistics.median(rates[name])
            split_ms = {
                key: statistics.median(p[key] for p in parts[name]) for key in parts[name][0]
            }
            ms = [split_ms[key] for key in ("picture", "suggestions", "rest")]
            cpu = statistics.median(cpus[name])
            print(
                f"{name:<8} {rate:16.2f} {1000 / rate:9.0f} {cpu:7.0f} {rate / base:9.4f}"
                f" {ms[0]:8.0f} {ms[1]:9.0f} {ms[2]:6.0f}"
            )
        if "before" in trees:
            ratio = statistics.median(rates["before"]) / statistics.median(rates["now"])
            print(f"\nworker time an email, now / before: {ratio:.2f} (goal <= 0.33)")
            ratio = statistics.median(cpus["now"]) / statistics.median(cpus["before"])
            print(f"worker CPU an email, now / before: {ratio:.2f}")
            # Each run's own pair: both trees measured within minutes of each other.
            pairs = [now / before for now, before in zip(cpus["now"], cpus["before"], strict=True)]
            print("  run by run: " + ", ".join(f"{pair:.2f}" for pair in pairs))
    finally:
        ids_file.unlink(missing_ok=True)
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
