"""Web speed as ratios against a bare Django view on the same stack (not a test).

    .venv/bin/python benchmarks/bench_web.py [--seconds 10] [--runs 3] [--connections N]

It runs the service as an operator does: production settings with DEBUG off, gunicorn
with the deployment's sync workers (deploy/gunicorn.conf.py: 5 on 2 cores) on a loopback
port, PostgreSQL (``BENCH_DATABASE_URL``, default
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

Every game is made as players make it (benchmarks/form_games.py: the new-game form's
defaults, invitations accepted, every move through the write path), of two kinds side by
side: no clock ("untimed"), and a day a move with the form's reminders ("timed"). Each
kind has a 6-player TransEuropa game played on to round 4, one early in round 1 and one
played to its end (the replay).

Move POSTs go to a pool of games of each kind, copies of its long game's rows (every
column as the write path wrote it: its log, digest, clock and deadline; only what makes a
game and a seat its own is made anew, as the project makes it), each at the same
position, so that every POST is an accepted move; a connection whose share of the pool is
used up stops, and the run fails (give a larger ``--pool``). Only a 302 counts, and after
each load the games of its part that moved on are counted: one for each 302 (a player's
move, not an answer that only looks like one). After the load, the first view of each page after
a move (nothing rendered for the new version yet: the move itself has cached the game's
new state) is timed request by request.

The pool's games hold the same log, and cached states are keyed by the log's content
(games.derived.snapshots), so a POST finds the state before the move cached, as it does when
the player has looked at the board before moving.

Last (issue 39, point 4): the worker seconds of a turn played by a plan and of one played
by a greedy bot, each as the bot task plays it (``autoplay.play_bot_turns``, through the
write path), on 4-player games without a clock (in a timed game the task does not play a
plan's turn before its player's deadline); the POST's own figure includes neither (no
seat of the pool is a bot's or has a plan).

Goals (issues 12 and 39): board pages >= 1/3 of the bare view; the replay page and a move
POST >= 1/5; in timed games as in untimed ones.
"""

from __future__ import annotations

import argparse
import json
import os
import runpy
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
REDIS = os.getenv("BENCH_REDIS_URL", "redis://127.0.0.1:6379/11")
MOVES = "move POST in the long game"
KINDS = ("untimed", "timed")  # no clock; a day a move (with the form's reminders)
MOVE_RATE = 1000  # moves a second the default pool allows for (a quiet 2-core machine: ~540)


def deploy_workers() -> int:
    """The web workers a deployment starts on this machine (deploy/gunicorn.conf.py)."""
    return runpy.run_path(str(ROOT / "deploy" / "gunicorn.conf.py"))["workers"]


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
    """Make the games the benchmark loads, untimed and timed, and write their URLs and
    move bodies to ``out``."""
    import django

    django.setup()
    from django.db import connection

    targets = {kind: build_kind(pool_size, kind == "timed") for kind in KINDS}
    # Millions of rows were just written: vacuum and analyze them, and write them out, now
    # rather than in the middle of a run (autovacuum and a checkpoint made the move runs
    # of one benchmark differ by a quarter).
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
        cursor.execute("CHECKPOINT")
    out.write_text(json.dumps(targets))


def build_kind(pool_size: int, timed: bool) -> dict:
    """The games of one kind (a day a move, or no clock), all made through the new-game
    form's defaults and the write path (benchmarks/form_games.py)."""
    import form_games
    from django.db import connection, transaction

    from games import bots, rules, services
    from games.links import seat_path
    from games.models import Event, Game, Seat, new_link_nonce, new_thread_token

    kind = "timed" if timed else "untimed"
    # A 6-player TransEuropa game played on to round 4, and 20 moves into it.
    # (The deal is random: a game that ends sooner is set aside and another one made.)
    for attempt in range(20):
        long = form_games.new_game("transeuropa", 6, timed, f"{kind}-long{attempt}", f"long {kind}")
        for game in form_games.play(long, 2000):
            long = game
            if game.round >= 4 and game.version >= rounds_start(game) + 20:
                break
        if long.seat_to_move is not None and long.round >= 4:
            break
    else:
        raise RuntimeError("no game reached round 4")
    finished = form_games.played(
        form_games.new_game("transeuropa", 6, timed, f"{kind}-done", f"finished {kind}"), 5000
    )
    if finished.status != Game.Status.FINISHED:
        raise RuntimeError("the finished game did not finish")
    early = form_games.played(
        form_games.new_game("transeuropa", 6, timed, f"{kind}-early", f"early {kind}"), 3
    )

    # The pool: copies of the long game's rows, each waiting for the same legal move. Every
    # column is the one the write path wrote for the long game (its log, digest, clock and
    # deadline), but for what makes a game and a seat its own (made as the project makes
    # them): ids, title, thread token, link nonces, addresses.
    state = services.load_state(long)
    mover = state.seat_to_move
    move = bots.greedy_move(state, mover)
    board = state.board
    if isinstance(move, rules.PlaceStart):
        fields = {"point": board.point_index[move.point]}
    else:
        fields = {"line1": board.line_id(move.lines[0])}
        if len(move.lines) > 1:
            fields["line2"] = board.line_id(move.lines[1])
    template = Game.objects.get(pk=long.pk)
    columns = {
        f.attname: getattr(template, f.attname)
        for f in Game._meta.concrete_fields
        if not f.primary_key
    }
    seats = list(Seat.objects.filter(game=long).order_by("position"))
    seat_columns = [
        {
            f.attname: getattr(seat, f.attname)
            for f in Seat._meta.concrete_fields
            if not f.primary_key and f.attname not in ("game_id", "user_id")
        }
        for seat in seats
    ]
    pool = []
    with transaction.atomic():
        for start in range(0, pool_size, 500):
            numbers = range(start, min(start + 500, pool_size))
            copies = Game.objects.bulk_create(
                Game(**{**columns, "title": f"pool {kind} {n}", "thread_token": new_thread_token()})
                for n in numbers
            )
            Seat.objects.bulk_create(
                Seat(
                    **{
                        **row,
                        # Players of their own: 8,000 games of the same six people would
                        # make "the next game waiting for you" a search through 8,000 games.
                        "email": f"pool{kind}{n}.{row['position']}@bench.test",
                        "link_nonce": new_link_nonce(),
                    },
                    game=copy,
                )
                for n, copy in zip(numbers, copies, strict=True)
                for row in seat_columns
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
    post_paths, bodies, game_ids = [], [], []
    # The pool's games are the only ones made between its first and its last (a list of
    # their keys would pass PostgreSQL's limit of 65,535 parameters in a large pool).
    first, last = pool[0].pk, pool[-1].pk
    movers = Seat.objects.filter(game_id__gte=first, game_id__lte=last, position=mover)
    movers = movers.select_related("game")
    for seat in movers.order_by("game_id"):
        post_paths.append(seat_path(seat))
        form = {"csrfmiddlewaretoken": CSRF, "version": seat.game.version, **fields}
        bodies.append(urllib.parse.urlencode(form))
        game_ids.append(seat.game_id)
    return {
        "long_board": seat_path(long.seats.get(position=mover)),
        "long_events": long.version,
        "early_board": seat_path(early.seats.get(position=early.seat_to_move)),
        "replay": f"/games/{finished.pk}/replay/",
        "replay_events": finished.version,
        "post_paths": post_paths,
        "bodies": bodies,
        "game_ids": game_ids,
        "version": template.version,
        "clock": str(template.time_per_move),
        "deadline": template.deadline.isoformat() if template.deadline else None,
    }


def rounds_start(game) -> int:
    """The version at which ``game``'s current round began."""
    from games.models import Event

    started = Event.objects.filter(game=game, type="round_started").order_by("-seq").first()
    return started.seq if started else 0


def moved(sample: str) -> None:
    """How many of the pool games in ``sample`` (a file: the game ids, then the version
    they were at) have moved on since, as a player's move moves them: printed as JSON."""
    import django

    django.setup()
    from games.models import Game

    ids, version = json.loads(Path(sample).read_text())
    print(json.dumps(Game.objects.filter(pk__in=ids, version__gt=version).count()))


def explain(paths: str) -> None:
    """The queries of one board page and one move POST (``paths``: JSON of the board's
    path, and the move's path and body), each with its plan: which index each reads
    (EXPLAIN ANALYZE for a read; a write is explained, not run again). Printed as JSON."""
    import django

    django.setup()
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    board, post, body = json.loads(paths)
    client = Client(HTTP_HOST=HOST, HTTP_X_FORWARDED_PROTO="https")
    client.cookies["csrftoken"] = CSRF
    found = {}
    for name, method, path, status in (
        ("board page", "get", board, 200),
        ("move POST", "post", post, 302),
    ):
        with CaptureQueriesContext(connection) as queries:
            if method == "get":
                answer = client.get(path)
            else:
                answer = client.post(path, body, content_type="application/x-www-form-urlencoded")
        if answer.status_code != status:
            raise SystemExit(f"{name}: {answer.status_code}, not {status}")
        found[name] = [query["sql"] for query in queries.captured_queries]
    plans = {}
    with connection.cursor() as cursor:
        for name, statements in found.items():
            plans[name] = []
            for sql in statements:
                head = sql.lstrip().upper()
                if head.startswith(("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE", "SET")):
                    continue
                reads = head.startswith(("SELECT", "(SELECT"))
                how = "ANALYZE, COSTS OFF, TIMING OFF" if reads else "COSTS OFF"
                cursor.execute(f"EXPLAIN ({how}) " + sql)
                plans[name].append({"sql": sql, "plan": [row[0] for row in cursor.fetchall()]})
    print(json.dumps(plans))


def load_background(games: int) -> None:
    """``games`` copies of six games made through the write path (background.py), and
    the tables' sizes then."""
    import django

    django.setup()
    import background
    from django.db import connection

    templates = background.make_templates("bg")
    background.load(games, templates, report=lambda line: print(line, file=sys.stderr))
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    print(json.dumps(background.sizes()))


def bot_turns(count: int) -> None:
    """Worker seconds of a turn played by a plan, and of one played by a greedy bot, both
    as the worker's task plays them (autoplay.play_bot_turns, through the write path), on
    games made through the new-game form without a clock (with one, the task leaves a
    plan's turn until its player's deadline: tests/games/services/test_plans.py's xfail):
    print each's seconds as JSON."""
    import django

    django.setup()
    import form_games

    from games.models import Game
    from games.rules import plans as plan_forms
    from games.services import autoplay, plans
    from notifications import tasks

    # Nothing is delivered meanwhile: the benchmark's broker has no worker.
    tasks.deliver_after_commit = lambda *args, **kwargs: None
    spent: dict[str, list[float]] = {"plan": [], "greedy bot": []}

    def timed_turn(game: Game, seat: int, kind: str) -> None:
        """Others move until ``seat``'s turn comes; then time its turn, played for it."""
        while (game := Game.objects.get(pk=game.pk)).seat_to_move != seat:
            game = form_games.played(game, 1)
        started = time.perf_counter()
        played, _ = autoplay.play_bot_turns(game.pk, game.version, limit=1)
        spent[kind].append(time.perf_counter() - started)
        if played != 1:
            raise SystemExit(f"the {kind} did not play game {game.pk}'s turn")

    for number in range(count):
        # A plan: the creator's seat heads for all its cities; the others move. (Toward one
        # city, the plan stops unplayed when the greedy moves have joined that city.)
        game = form_games.played(
            form_games.new_game("transeuropa", 4, False, f"plan{number}"), 4 + number % 8
        )
        plans.set_plan(game.seats.get(position=0), plan_forms.ALL)
        timed_turn(game, 0, "plan")
        # A greedy bot's seat, its turn come.
        game = form_games.new_game("transeuropa", 4, False, f"bot{number}", bots={1: "greedy"})
        game = form_games.played(game, 1 + 4 * (number % 8))
        timed_turn(game, 1, "greedy bot")
    print(json.dumps(spent))


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
    warming: bool = False,
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
    if int(total) == 0 and not warming:  # a warm-up on a loaded machine may see none
        raise SystemExit(f"{path}: no request completed")
    if int(ran_out):
        raise SystemExit(f"the move pool ran out after {total} moves: give a larger --pool")
    return float(rate), int(total)


def one_get(port: int, path: str) -> None:
    """One GET of ``path``, waited for."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    conn.request("GET", path, headers={"Host": HOST, "X-Forwarded-Proto": "https"})
    conn.getresponse().read()
    conn.close()


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


def child(what: str, *args: str) -> str:
    """Run a step of this script in a child process with the benchmark's settings; its
    last line of output."""
    done = subprocess.run(
        [PYTHON, __file__, what, *args],
        cwd=ROOT,
        env=CHILD_ENV,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if done.returncode:
        raise SystemExit(f"{what} failed:\n{done.stderr[-3000:]}")
    return done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""


CHILD_ENV: dict[str, str] = {}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--connections",
        type=int,
        default=2 * deploy_workers(),
        help="requests at once (default: twice the deployment's web workers, so that none idles)",
    )
    parser.add_argument(
        "--pool",
        type=int,
        help=f"games for the move POSTs of each kind (default: enough for {MOVE_RATE:,} a second)",
    )
    parser.add_argument("--turns", type=int, default=9, help="plan and bot turns timed")
    parser.add_argument(
        "--background",
        type=int,
        default=0,
        help="games loaded first (benchmarks/background.py), as a large site's database",
    )
    parser.add_argument(
        "--explain",
        action="store_true",
        help="print the plans of a board page's and a move's queries",
    )
    args = parser.parse_args()
    if not shutil.which("wrk"):
        raise SystemExit("wrk is missing: run scripts/install-system-deps")
    # The last ``kept`` games of each pool are for the first views and the plans.
    warm_seconds, kept = 2, 11
    warm = MOVE_RATE * warm_seconds
    pool_size = args.pool or warm + round(MOVE_RATE * args.seconds) * args.runs + kept
    database_url = os.getenv("BENCH_DATABASE_URL", DEFAULT_DB)
    env = service_env(database_url)
    workdir = Path(tempfile.mkdtemp(prefix="railmail-bench-"))
    env["STATIC_ROOT"] = str(workdir / "static")
    CHILD_ENV.update(env, PYTHONPATH=f"{ROOT}:{ROOT / 'benchmarks'}")
    fresh_database(database_url, env)
    command = [PYTHON, "manage.py", "collectstatic", "--no-input", "-v0"]
    subprocess.run(command, cwd=ROOT, env=env, check=True, timeout=300)
    if args.background:
        print(f"loading {args.background:,} background games ...", flush=True)
        started = time.monotonic()
        child("--background", str(args.background))
        print(f"  loaded in {time.monotonic() - started:.0f} s", flush=True)
    targets_file = workdir / "targets.json"
    print(f"building the games ({pool_size} of each kind in the move pool) ...", flush=True)
    subprocess.run(
        [PYTHON, __file__, "--build", str(pool_size), str(targets_file)],
        cwd=ROOT,
        env=CHILD_ENV,
        check=True,
        timeout=3600,
    )
    every = json.loads(targets_file.read_text())
    for kind in KINDS:
        print(
            f"  {kind}: clock {every[kind]['clock']}, the long game at version"
            f" {every[kind]['version']}, deadline {every[kind]['deadline']}"
        )
    script = workdir / "bench.lua"
    script.write_text(WRK_SCRIPT)
    port = free_port()
    server = subprocess.Popen(
        [
            *(PYTHON, "-m", "gunicorn", "pbem.wsgi", "--workers", str(deploy_workers())),
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
        # Its workers start after it binds the port: wait for one to answer.
        import http.client

        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                conn.request(
                    "GET", "/bench/ok/", headers={"Host": HOST, "X-Forwarded-Proto": "https"}
                )
                if conn.getresponse().status == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline + 90:
                raise SystemExit("gunicorn's workers did not answer within 2 minutes")
            time.sleep(0.5)
        untimed = every["untimed"]
        labels = {
            "bare": "bare view",
            "long": f"board page, 6-player TransEuropa, round 4 ({untimed['long_events']} events)",
            "early": "board page, early in round 1",
            "replay": f"replay page of a finished game ({untimed['replay_events']} events)",
            "move": MOVES,
        }
        pages = {("bare", kind): ("/bench/ok/", 200) for kind in KINDS}
        for kind in KINDS:
            targets = every[kind]
            pages[("long", kind)] = (targets["long_board"], 200)
            pages[("early", kind)] = (targets["early_board"], 200)
            pages[("replay", kind)] = (targets["replay"], 200)
        moves = {
            kind: list(zip(every[kind]["post_paths"], every[kind]["bodies"], strict=True))
            for kind in KINDS
        }
        pool_file = workdir / "pool.tsv"

        def load(
            target: tuple[str, str], seconds: float, part: slice | None = None, warming=False
        ) -> float:
            """Load one target for ``seconds`` (the moves: the pool's ``part``)."""
            if part is None:
                path, status = pages[target]
                return wrk(
                    port,
                    path,
                    status=status,
                    seconds=seconds,
                    connections=args.connections,
                    script=script,
                    warming=warming,
                )[0]
            kind = target[1]
            lines = [f"{path}\t{body}" for path, body in moves[kind][part]]
            pool_file.write_text("\n".join(lines) + "\n")
            rate, total = wrk(
                port,
                "/",
                status=302,
                seconds=seconds,
                connections=args.connections,
                script=script,
                pool=pool_file,
                warming=warming,
            )
            check_moved(every[kind], part, total, args.connections)
            return rate

        # Uncounted: the workers start after gunicorn binds its port, and each has its
        # connection, caches and code paths to warm (a first view, one by one, may take
        # seconds on a loaded machine).
        for target in pages:
            for _ in range(3):
                one_get(port, pages[target][0])
        for target in pages:
            load(target, warm_seconds, warming=True)
        for kind in KINDS:
            load(("move", kind), warm_seconds, slice(0, warm), warming=True)
        results: dict[tuple[str, str], list[float]] = {}
        # Each run moves in a part of the pool of its own (each connection's thread an
        # interleaved share of it); the last games are kept for the first views.
        share = (pool_size - warm - kept) // args.runs
        for run in range(args.runs):
            floor = load(("bare", "untimed"), args.seconds)
            results.setdefault(("bare", "untimed"), []).append(floor)
            shares = []
            for short in ("long", "early", "replay", "move"):
                for kind in KINDS:
                    if short == "move":
                        part = slice(warm + run * share, warm + (run + 1) * share)
                        rate = load((short, kind), args.seconds, part)
                    else:
                        rate = load((short, kind), args.seconds)
                    results.setdefault((short, kind), []).append(rate)
                    shares.append(f"{short} {kind} {rate / floor:.3f}")
            print(
                f"run {run + 1} of {args.runs}: bare view {floor:.0f} req/s; " + ", ".join(shares),
                flush=True,
            )
        floor = statistics.median(results[("bare", "untimed")])
        print(
            f"\nmedian of {args.runs} runs, {args.seconds:g} s each, {args.connections} conn.;"
            f" bare view {floor:.0f} req/s"
        )
        print(f"{'share of the bare view':<62} {'untimed':>8} {'timed':>8}  goal")
        goals = {"long": 1 / 3, "early": 1 / 3, "replay": 1 / 5, "move": 1 / 5}
        for short, goal in goals.items():
            cells = [statistics.median(results[(short, kind)]) / floor for kind in KINDS]
            print(f"{labels[short]:<62} {cells[0]:8.3f} {cells[1]:8.3f}  >= {goal:.2f}")
        print("\nfirst view after a move (ms, median of 10):")
        views = {kind: first_views(port, every[kind], kept - 1) for kind in KINDS}
        for label in views["untimed"]:
            print(f"  {label:<60} {views['untimed'][label]:8.1f} {views['timed'][label]:8.1f}")
    finally:
        server.terminate()
        server.wait(timeout=30)
    if args.explain:
        for kind in KINDS:
            targets = every[kind]
            paths = [targets["long_board"], targets["post_paths"][-kept], targets["bodies"][-kept]]
            plans = json.loads(child("--explain", json.dumps(paths)))
            for name, statements in plans.items():
                print(f"\n{kind} {name}: {len(statements)} queries, EXPLAIN ANALYZE:")
                for item in statements:
                    print(f"  {item['sql'][:300]}")
                    for line in item["plan"]:
                        print(f"      {line}")
        print("\nthe largest tables:")
        for name, count, total in json.loads(child("--sizes")):
            print(f"  {name:<32} {count:>14} rows {total:>10}")
    spent = json.loads(child("--bot-turns", str(args.turns)))
    print(f"\nworker seconds of a turn, as the bot task plays it (median of {args.turns}):")
    for name, seconds in spent.items():
        print(
            f"  {name + ':':<12} {statistics.median(seconds):.3f} s  (each: "
            + ", ".join(f"{s:.3f}" for s in seconds)
            + ")"
        )
    ratio = statistics.median(spent["plan"]) / statistics.median(spent["greedy bot"])
    print(f"  a plan's turn / a greedy bot's turn: {ratio:.2f}")
    shutil.rmtree(workdir, ignore_errors=True)


def check_moved(targets: dict, part: slice, answered: int, connections: int) -> None:
    """Every move the part's load was answered 302 must have moved one game of the
    part on, as a player's move does (no answer that only looks like one); the moves in
    flight when the load stopped (one a connection at most) may have too."""
    sample = Path(tempfile.mkstemp(prefix="railmail-moved-")[1])
    try:
        sample.write_text(json.dumps([targets["game_ids"][part], targets["version"]]))
        count = json.loads(child("--moved", str(sample)))
    finally:
        sample.unlink()
    if not answered <= count <= answered + connections:
        raise SystemExit(f"{answered} moves answered 302, but {count} games moved on")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--build":
        sys.path.insert(0, str(ROOT))
        build(int(sys.argv[2]), Path(sys.argv[3]))
    elif len(sys.argv) == 3 and sys.argv[1] == "--moved":
        moved(sys.argv[2])
    elif len(sys.argv) == 2 and sys.argv[1] == "--sizes":
        import django

        django.setup()
        import background

        print(json.dumps(background.sizes()))
    elif len(sys.argv) == 3 and sys.argv[1] == "--background":
        load_background(int(sys.argv[2]))
    elif len(sys.argv) == 3 and sys.argv[1] == "--explain":
        explain(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "--bot-turns":
        bot_turns(int(sys.argv[2]))
    else:
        main()
