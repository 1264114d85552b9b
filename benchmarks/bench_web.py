"""Web speed as ratios against a bare Django view on the same stack (not a test).

    .venv/bin/python benchmarks/bench_web.py [--seconds 10] [--runs 3] [--connections 4]

It runs the service as an operator does: production settings with DEBUG off, gunicorn
with 3 sync workers on a loopback port, PostgreSQL (``BENCH_DATABASE_URL``, default
``postgres://postgres@127.0.0.1:5432/railmail_bench``, made afresh) and Redis as the
broker with no worker, so that the emails a move causes are queued, not sent. A bare view
returning "ok" is mounted beside the product's pages (only when RAILMAIL_BENCHMARK is on)
and goes through the same middleware. wrk (Debian's, installed by
scripts/install-system-deps) loads each target on loopback for ``--seconds``, sending
``X-Forwarded-Proto: https`` and the site's host so that nothing is redirected; only the
expected status counts, and any other answer fails the run. Every target is loaded for 2 s
first, uncounted: gunicorn binds its port before its workers have started, and a worker's
first requests warm its connection and caches. Each figure is the median of ``--runs``
runs, printed as requests/s and as a share of the bare view's (each run's shares of its own
bare view are printed as it ends).

Move POSTs go to a pool of identical games, each at the same position, so that every POST
is an accepted move; a connection whose share of the pool is used up stops, and the run
fails (give a larger ``--pool``). After the load, the first view of each page after a
move (nothing rendered for the new version yet: the move itself has cached the game's new
state) is timed request by request.

The pool's games hold the same log, and cached states are keyed by the log's content
(games.derived.snapshots), so a POST finds the state before the move cached, as it does when the
player has looked at the board before moving.

Goals (issue 12): board pages >= 1/3 of the bare view; the replay page and a move POST
>= 1/5.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

from stack import fresh_database, production_env

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
HOST = "bench.railmail.test"
CSRF = "benchcsrftokenbenchcsrftoken0123"  # 32 characters, the cookie's and the form's
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/railmail_bench"
REDIS = "redis://127.0.0.1:6379/11"
MOVES = "move POST in the long game"
# The targets' names in the line each run prints.
SHORT = ("long board", "early board", "replay", "move")


def service_env(database_url: str) -> dict[str, str]:
    """Production settings for the benchmark's gunicorn and its set-up."""
    return production_env(
        database_url,
        RAILMAIL_BENCHMARK="true",
        SITE_URL=f"https://{HOST}",
        DB_CONN_MAX_AGE="60",
        CELERY_BROKER_URL=REDIS,
    )


# --- building the games (runs in a child process with the benchmark's settings) ---------


def build(pool_size: int, out: Path) -> None:
    """Make the games the benchmark loads and write their URLs and move bodies to ``out``."""
    import django

    django.setup()
    from django.db import connection, transaction

    from games import bots, rules, services
    from games.links import seat_path
    from games.models import Event, Game, Seat, new_thread_token

    def long_log() -> tuple[list[dict], int]:
        """A 6-player TransEuropa game that reaches round 4, and its length there."""
        for seed in range(200):
            events = bots.simulate("transeuropa", 6, random.Random(seed))
            starts = [n for n, e in enumerate(events) if e["type"] == "round_started"]
            if len(starts) >= 4 and starts[3] + 20 < len(events):
                return events, starts[3] + 20
        raise RuntimeError("no seed reached round 4")

    def make(events: list[dict], title: str) -> Game:
        players = [services.SeatSpec(f"Player {n}", f"p{n}@bench.test") for n in range(6)]
        game = services.create_game(events[0]["board"], None, players)
        game = services.append_events(game, events[1:])
        Game.objects.filter(pk=game.pk).update(title=title)
        return game

    events, cut = long_log()
    # The longest of a few finished games, for the replay page.
    logs = (bots.simulate("transeuropa", 6, random.Random(seed)) for seed in range(12))
    finished = make(max(logs, key=len), "finished")
    long = make(events[:cut], "long")
    early = make(events[:10], "early")

    # The pool: copies of the long game's rows, each waiting for the same legal move.
    state = rules.replay(events[:cut])
    mover = state.seat_to_move
    move = bots.greedy_move(state, mover)
    board = state.board
    if isinstance(move, rules.PlaceStart):
        fields = {"point": board.point_index[move.point]}
    else:
        fields = {"line1": board.line_id(move.lines[0])}
    template = Game.objects.get(pk=long.pk)
    columns = {
        f.attname: getattr(template, f.attname)
        for f in Game._meta.concrete_fields
        if not f.primary_key
    }
    seats = list(Seat.objects.filter(game=long).order_by("position"))
    pool = []
    with transaction.atomic():
        for start in range(0, pool_size, 500):
            numbers = range(start, min(start + 500, pool_size))
            copies = Game.objects.bulk_create(
                Game(**{**columns, "title": f"pool {n}", "thread_token": new_thread_token()})
                for n in numbers
            )
            Seat.objects.bulk_create(
                Seat(
                    game=copy,
                    position=s.position,
                    name=s.name,
                    # Players of their own: 8,000 games of the same six people would make
                    # "the next game waiting for you" a search through 8,000 games.
                    email=f"pool{n}.{s.position}@bench.test",
                    joined_at=s.joined_at,
                )
                for n, copy in zip(numbers, copies, strict=True)
                for s in seats
            )
            # The long game's rows as they are, for every copy in one statement (the ORM
            # would send each row over the wire again).
            with connection.cursor() as cursor:
                cursor.execute(
                    f"INSERT INTO {Event._meta.db_table} (game_id, seq, type, data, created_at)"
                    f" SELECT copy, seq, type, data, created_at FROM {Event._meta.db_table},"
                    " unnest(%s::bigint[]) AS copy WHERE game_id = %s",
                    [[copy.pk for copy in copies], long.pk],
                )
            pool += copies
    post_paths, bodies = [], []
    # The pool's games are the only ones made between its first and its last (a list of
    # their keys would pass PostgreSQL's limit of 65,535 parameters in a large pool).
    first, last = pool[0].pk, pool[-1].pk
    movers = Seat.objects.filter(game_id__gte=first, game_id__lte=last, position=mover)
    movers = movers.select_related("game")
    for seat in movers.order_by("game_id"):
        post_paths.append(seat_path(seat))
        form = {"csrfmiddlewaretoken": CSRF, "version": seat.game.version, **fields}
        bodies.append(urllib.parse.urlencode(form))
    viewer = long.seats.get(position=mover)
    # Millions of rows were just written: vacuum and analyze them, and write them out, now
    # rather than in the middle of a run (autovacuum and a checkpoint made the move runs
    # of one benchmark differ by a quarter).
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
        cursor.execute("CHECKPOINT")
    out.write_text(
        json.dumps(
            {
                "long_board": seat_path(viewer),
                "long_events": long.version,
                "early_board": seat_path(early.seats.get(position=early.seat_to_move)),
                "replay": f"/games/{finished.pk}/replay/",
                "replay_events": finished.version,
                "post_paths": post_paths,
                "bodies": bodies,
            }
        )
    )


# --- loading (runs in the parent) --------------------------------------------------------

WRK_SCRIPT = """
local requests = {}
local paths, bodies = {}, {}
local n = 0
local expected = tonumber(os.getenv("BENCH_STATUS"))
local wrong = 0
local pool_file = os.getenv("BENCH_POOL")
if pool_file ~= nil and pool_file ~= "" then
  for line in io.lines(pool_file) do
    local path, body = line:match("([^\\t]+)\\t(.*)")
    table.insert(paths, path)
    table.insert(bodies, body)
  end
end
local counter = 0
local threads = {}
setup = function(thread)
  thread:set("offset", counter)
  counter = counter + 1
  table.insert(threads, thread)
end
request = function()
  if #paths > 0 then
    n = n + 1
    local i = offset + (n - 1) * tonumber(os.getenv("BENCH_THREADS")) + 1
    return wrk.format("POST", paths[i], nil, bodies[i])
  end
  return wrk.format(nil, nil, nil, nil)
end
-- A thread whose share of the pool is used up stops rather than send a move that could
-- not be accepted, and says so: wrk still counts the whole run's time, so the run fails.
local function share_done()
  return #paths > 0 and offset + n * tonumber(os.getenv("BENCH_THREADS")) + 1 > #paths
end
response = function(status, headers, body)
  if status ~= expected then
    wrong = wrong + 1
    if wrong < 4 then io.stderr:write("unexpected status " .. status .. "\\n") end
  end
  if share_done() then
    exhausted = 1
    wrk.thread:stop()
  end
end
done = function(summary, latency, requests)
  local ran_out = 0
  for _, thread in ipairs(threads) do
    ran_out = ran_out + (thread:get("exhausted") or 0)
  end
  io.write(string.format("BENCH %d %f %d\\n", summary.requests,
    summary.requests / (summary.duration / 1e6), ran_out))
end
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wrk(
    port: int,
    path: str,
    *,
    status: int,
    seconds: float,
    connections: int,
    script: Path,
    pool: Path | None = None,
) -> tuple[float, int]:
    """Requests per second at ``path``, and how many were made; raises if any answer had
    another status, or if a connection used up its share of the move ``pool``."""
    threads = 1 if pool is None else connections
    env = {
        **os.environ,
        "BENCH_STATUS": str(status),
        "BENCH_POOL": str(pool or ""),
        "BENCH_THREADS": str(threads),
    }
    headers = ["-H", f"Host: {HOST}", "-H", "X-Forwarded-Proto: https"]
    if pool is not None:
        headers += [
            "-H",
            f"Cookie: csrftoken={CSRF}",
            "-H",
            f"Referer: https://{HOST}/",
            "-H",
            "Content-Type: application/x-www-form-urlencoded",
        ]
    command = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds:g}s", "-s", str(script)]
    done = subprocess.run(
        [*command, *headers, f"http://127.0.0.1:{port}{path}"],
        env=env,
        capture_output=True,
        text=True,
        timeout=seconds + 60,
        check=True,
    )
    line = next(line for line in done.stdout.splitlines() if line.startswith("BENCH "))
    _, total, rate, ran_out = line.split()
    wrong = done.stderr.count("unexpected status")
    if wrong:
        raise SystemExit(f"{path}: {wrong}+ answers were not {status}:\n{done.stderr}")
    if int(total) == 0:
        raise SystemExit(f"{path}: no request completed")
    if int(ran_out):
        raise SystemExit(f"the move pool ran out after {total} moves: give a larger --pool")
    return float(rate), int(total)


def first_views(port: int, targets: dict, count: int) -> dict[str, float]:
    """Milliseconds for a page's first view after a move: move one pool game, then time
    one GET of its board page, one of its replay page (through the seat's link) and one of
    the bare view."""
    import http.client

    def timed(method: str, path: str, body: str = "") -> tuple[float, int]:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        headers = {"Host": HOST, "X-Forwarded-Proto": "https"}
        if method == "POST":
            headers |= {
                "Cookie": f"csrftoken={CSRF}",
                "Referer": f"https://{HOST}/",
                "Content-Type": "application/x-www-form-urlencoded",
            }
        start = time.perf_counter()
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        response.read()
        conn.close()
        return (time.perf_counter() - start) * 1000, response.status

    board, replay, bare, move = [], [], [], []
    for path, body in list(zip(targets["post_paths"], targets["bodies"], strict=True))[-count:]:
        ms, status = timed("POST", path, body)
        if status != 302:
            raise SystemExit(f"first view: the move at {path} answered {status}")
        move.append(ms)
        ms, status = timed("GET", path)
        if status != 200:
            raise SystemExit(f"first view: {path} answered {status}")
        board.append(ms)
        ms, status = timed("GET", path + "history/")
        if status != 200:
            raise SystemExit(f"first view: {path}history/ answered {status}")
        replay.append(ms)
        bare.append(timed("GET", "/bench/ok/")[0])
    return {
        "bare view": statistics.median(bare),
        "move POST (uncached)": statistics.median(move),
        "board page, first view after a move": statistics.median(board),
        "replay page, first view after a move": statistics.median(replay),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument(
        "--pool",
        type=int,
        help="games for the move POSTs (default: enough for 1,000 moves a second)",
    )
    args = parser.parse_args()
    if not shutil.which("wrk"):
        raise SystemExit("wrk is missing: run scripts/install-system-deps")
    # Moves for the warm-up, for each run and for the first views: at up to 1,000 a second.
    warm_seconds, kept = 2, 10
    warm = 1000 * warm_seconds
    pool_size = args.pool or warm + round(1000 * args.seconds) * args.runs + kept
    database_url = os.getenv("BENCH_DATABASE_URL", DEFAULT_DB)
    env = service_env(database_url)
    workdir = Path(tempfile.mkdtemp(prefix="railmail-bench-"))
    env["STATIC_ROOT"] = str(workdir / "static")
    fresh_database(database_url, env)
    command = [PYTHON, "manage.py", "collectstatic", "--no-input", "-v0"]
    subprocess.run(command, cwd=ROOT, env=env, check=True, timeout=300)
    targets_file = workdir / "targets.json"
    print(f"building the games ({pool_size} in the move pool) ...", flush=True)
    subprocess.run(
        [PYTHON, __file__, "--build", str(pool_size), str(targets_file)],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=900,
    )
    targets = json.loads(targets_file.read_text())
    script = workdir / "bench.lua"
    script.write_text(WRK_SCRIPT)
    port = free_port()
    server = subprocess.Popen(
        [
            *(PYTHON, "-m", "gunicorn", "pbem.wsgi", "--workers", "3"),
            *("--bind", f"127.0.0.1:{port}", "--log-level", "warning"),
        ],
        cwd=ROOT,
        env=env,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("gunicorn did not start within 30 s") from None
                time.sleep(0.2)
        pages = {
            "bare view": ("/bench/ok/", 200),
            f"board page, 6-player TransEuropa, round 4 ({targets['long_events']} events)": (
                targets["long_board"],
                200,
            ),
            "board page, early in round 1": (targets["early_board"], 200),
            f"replay page of a finished game ({targets['replay_events']} events)": (
                targets["replay"],
                200,
            ),
        }
        moves = list(zip(targets["post_paths"], targets["bodies"], strict=True))
        pool_file = workdir / "pool.tsv"

        def load(label: str, seconds: float, part: slice | None = None) -> float:
            """Load one target for ``seconds`` (the moves: the pool's ``part``)."""
            if part is None:
                path, status = pages[label]
                return wrk(
                    port,
                    path,
                    status=status,
                    seconds=seconds,
                    connections=args.connections,
                    script=script,
                )[0]
            lines = [f"{path}\t{body}" for path, body in moves[part]]
            pool_file.write_text("\n".join(lines) + "\n")
            return wrk(
                port,
                "/",
                status=302,
                seconds=seconds,
                connections=args.connections,
                script=script,
                pool=pool_file,
            )[0]

        # Uncounted: the workers start after gunicorn binds its port, and each has its
        # connection, caches and code paths to warm.
        for label in pages:
            load(label, warm_seconds)
        load(MOVES, warm_seconds, slice(0, warm))
        results: dict[str, list[float]] = {label: [] for label in [*pages, MOVES]}
        # Each run moves in a part of the pool of its own (each connection's thread an
        # interleaved share of it); the last games are kept for the first views.
        share = (len(moves) - warm - kept) // args.runs
        for run in range(args.runs):
            for label in pages:
                results[label].append(load(label, args.seconds))
            part = slice(warm + run * share, warm + (run + 1) * share)
            results[MOVES].append(load(MOVES, args.seconds, part))
            floor = results["bare view"][-1]
            shares = ", ".join(
                f"{short} {rates[-1] / floor:.3f}"
                for short, rates in zip(SHORT, list(results.values())[1:], strict=True)
            )
            print(f"run {run + 1} of {args.runs}: bare view {floor:.0f} req/s; {shares}")
        floor = statistics.median(results["bare view"])
        print(f"\nmedian of {args.runs} runs, {args.seconds:g} s each, {args.connections} conn.")
        print(f"{'what':<62} {'req/s':>8} {'share of bare':>14}")
        for label, rates in results.items():
            rate = statistics.median(rates)
            print(f"{label:<62} {rate:8.1f} {rate / floor:14.3f}")
        print("\nfirst view after a move (ms, median of 10):")
        for label, ms in first_views(port, targets, kept).items():
            print(f"  {label:<60} {ms:8.1f}")
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--build":
        sys.path.insert(0, str(ROOT))
        build(int(sys.argv[2]), Path(sys.argv[3]))
    else:
        main()
