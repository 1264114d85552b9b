"""The soak test (issue 33): a week of play on the real stack while it breaks (not a unit
test; its short form, a day, runs in `make test`: tests/test_soak.py).

    nice -n 10 .venv/bin/python benchmarks/soak.py [--days 7] [--games 200] [--minutes 25]

It runs, on loopback only and on ports of its own: a PostgreSQL cluster of its own
(initdb and pg_ctl from Debian, in a temporary directory, as the postgres user when run
as root) and a redis-server of its own, never the machine's shared ones; gunicorn, a
Celery worker and Celery beat, the inbound receiver (`manage.py receive_mail`), all with
production settings; and a mail server (aiosmtpd) that keeps what it accepts.

Every process reads one simulated clock (helpers/clock_source.py): this script writes
RAILMAIL_CLOCK_FILE, and ``--days`` of play pass in ``--minutes`` of wall time. Beat runs
the minute jobs as often as the clock's speed asks (at most once a wall second), and the
delivery task's time limit is shortened (RAILMAIL_SEND_TIME_LIMIT), so that its claims'
lease, a wall-time safety limit, runs out within the run.

The games: ``--games`` games of 2 to 5 seats on both boards, mostly people, some bots
(greedy and easy), a day per move, reminders 2 hours before the deadline, a bot playing a
late turn. People answer their your-turn emails after a delay of their own (minutes for
some, most of a day for others): by replying "1" (the email's first suggestion) by SMTP
to the receiver, or by following the suggestion's signed link and posting it over HTTP.

The faults, on a schedule over the run: the worker killed (SIGKILL of its process group,
restarted 2 s later), PostgreSQL restarted (pg_ctl stop -m fast, start again), Redis
killed and started again (empty: what it held is lost, as after a crash), the mail server
refusing connections, hanging (no answer to MAIL FROM), and dropping connections (cut
after a message's end, before its answer: that message is in doubt). While PostgreSQL or
Redis is away, it also asks for a sign-in link (an email-sending form) and loads pages.

At the end (after the clock has run on until every email due in the week has its
outcome): every game's log replays, `manage.py rebuild_projections --check` finds no
difference, every your-turn email due was accepted by the mail server exactly once or is
on the operator's list (left "being sent" and reported, or failed) with its reason, no
email was accepted twice, and no request got a 5xx outside the outages, nor anything but
503 with Retry-After within them. It prints the counts (and ``--json`` writes them) and
exits 1 if a check failed.
"""

from __future__ import annotations

import argparse
import asyncio
import email
import heapq
import json
import os
import random
import re
import shutil
import signal
import smtplib
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email import policy
from email.message import EmailMessage
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pbem.settings")

import requests  # noqa: E402
from aiosmtpd.controller import Controller  # noqa: E402

from benchmarks.stack import production_env  # noqa: E402
from tests.faults import closed_port, postgres_cluster  # noqa: E402

PYTHON = sys.executable
BIN = Path(PYTHON).parent
HOST = "soak.railmail.test"
INBOUND = "reply.soak.test"
OPERATOR = "operator@soak.test"
CSRF = "soakcsrftokensoakcsrftoken012345"  # 32 characters: the cookie's and the form's
# A suggestion's link in a your-turn email: /s/<token>/play/<version>/<number>/
SUGGESTION = re.compile(r"https://" + re.escape(HOST) + r"(/s/[^/\s]+/play/\d+/1/)")
# After an outage ends, the stack may take this long to answer normally again (a web
# process finds its pooled connection dead at its next request, and reconnects).
SETTLE = 10.0


# --- the mail server -----------------------------------------------------------------


@dataclass
class Sink:
    """aiosmtpd's handler: accepts every message (keeping its Message-ID), or, as the
    schedule says, hangs before MAIL FROM is answered or cuts the connection after a
    message's end. ``on_mail`` is told of each accepted message."""

    on_mail: object = None
    mode: str = "ok"  # ok, hang, drop
    keep: Path | None = None  # a folder to keep each accepted message in (--keep)
    accepted: Counter = field(default_factory=Counter)  # Message-ID -> times accepted
    kinds: Counter = field(default_factory=Counter)
    hung: int = 0
    dropped: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    async def handle_MAIL(self, server, session, envelope, address, mail_options):
        if self.mode == "hang":
            self.hung += 1
            for _ in range(600):  # until the client gives up (EMAIL_TIMEOUT), or 60 s
                if self.mode != "hang":
                    break
                await asyncio.sleep(0.1)
        envelope.mail_from = address
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        if self.mode == "drop":
            self.dropped += 1
            server.transport.close()  # after the final dot, before the answer
            return "421 closing"
        message = email.message_from_bytes(envelope.content, policy=policy.default)
        with self.lock:
            self.accepted[message["Message-ID"]] += 1
            if self.keep is not None:
                (self.keep / f"{sum(self.accepted.values())}.eml").write_bytes(envelope.content)
        if self.on_mail is not None:
            self.on_mail(message, envelope.rcpt_tos)
        return "250 Message accepted"


class MailServer:
    """The sink on a port of its own, stopped (connections refused) and started again."""

    def __init__(self, sink: Sink):
        self.sink, self.port, self.controller = sink, closed_port(), None

    def start(self) -> None:
        self.controller = Controller(self.sink, hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None


# --- the stack ------------------------------------------------------------------------


class Stack:
    """The processes of the service, each restarted if it dies (as systemd's
    Restart=always does), except while the schedule holds it down."""

    def __init__(self, directory: Path, env: dict[str, str], cluster, ports: dict[str, int]):
        self.directory, self.env, self.cluster, self.ports = directory, env, cluster, ports
        self.processes: dict[str, subprocess.Popen] = {}
        self.held: set[str] = set()
        self.restarts: Counter = Counter()

    def command(self, name: str) -> list[str]:
        return {
            "redis": ["redis-server", "--port", str(self.ports["redis"]), "--bind", "127.0.0.1",
                      "--save", "", "--appendonly", "no", "--dir", str(self.directory),
                      "--loglevel", "warning"],
            "web": [str(BIN / "gunicorn"), "pbem.wsgi", "-b", f"127.0.0.1:{self.ports['web']}",
                    "-w", "2", "--timeout", "30", "--graceful-timeout", "5"],
            "worker": [str(BIN / "celery"), "-A", "pbem", "worker", "-c", "2", "-l", "WARNING",
                       "--without-gossip", "--without-mingle", "--without-heartbeat"],
            "beat": [str(BIN / "celery"), "-A", "pbem", "beat", "-l", "WARNING",
                     "--schedule", str(self.directory / "beat-schedule")],
            "receiver": [PYTHON, "manage.py", "receive_mail", "--port",
                         str(self.ports["receiver"])],
        }[name]  # fmt: skip

    def start(self, name: str) -> None:
        log = open(self.directory / f"{name}.log", "ab")  # noqa: SIM115 (the child's)
        self.processes[name] = subprocess.Popen(
            self.command(name), cwd=ROOT, env=self.env, stdout=log, stderr=log,
            start_new_session=True,
        )  # fmt: skip
        self.held.discard(name)

    def kill(self, name: str, sig: int = signal.SIGKILL) -> None:
        """Kill ``name``'s whole process group (a worker's pool children too)."""
        self.held.add(name)
        process = self.processes.get(name)
        if process is None:
            return
        with suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)

    def supervise(self) -> None:
        for name, process in list(self.processes.items()):
            if name not in self.held and process.poll() is not None:
                self.restarts[name] += 1
                self.start(name)

    def stop_all(self) -> None:
        for name in ("beat", "web", "receiver", "worker"):
            if name in self.processes:
                self.kill(name, signal.SIGTERM)


def wait_for_port(port: int, timeout: float = 60) -> None:
    import socket

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            probe.settimeout(0.5)
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port} after {timeout} s")


# --- the clock ------------------------------------------------------------------------


class Clock:
    """The clock file every process reads (helpers.clock_source)."""

    def __init__(self, path: Path):
        self.path = path
        self.set(time.time(), 1.0)

    def set(self, simulated: float, speed: float) -> None:
        self.real, self.simulated, self.speed = time.time(), simulated, speed
        partial = self.path.with_suffix(".new")
        partial.write_text(json.dumps({"real": self.real, "simulated": simulated, "speed": speed}))
        partial.replace(self.path)  # at once: no process reads half a file

    def now(self) -> float:
        return self.simulated + (time.time() - self.real) * self.speed


# --- the people -----------------------------------------------------------------------


@dataclass
class Record:
    """Everything that happened, for the checks and the counts."""

    http: list = field(default_factory=list)  # (start, end, what, status, retry_after)
    replies: Counter = field(default_factory=Counter)  # the receiver's answers
    reply_errors: list = field(default_factory=list)
    outages: list = field(default_factory=list)  # (what, start, end), wall time
    faults: Counter = field(default_factory=Counter)
    probes: list = field(default_factory=list)  # (outage, what, status, retry_after)
    lag: list = field(default_factory=list)  # wall seconds an action started late
    lock: threading.Lock = field(default_factory=threading.Lock)


class People:
    """The players: each answers a your-turn email after a delay of their own, by a reply
    or on the page its suggestion links to."""

    def __init__(self, clock: Clock, stack_ports: dict, record: Record, seed: int):
        self.clock, self.ports, self.record = clock, stack_ports, record
        self.random = random.Random(seed)
        self.delays: dict[str, float] = {}  # address -> mean answer delay, simulated s
        self.by_reply: dict[str, float] = {}  # address -> share of answers by email
        self.queue: list = []  # (simulated time, n, action, args)
        self.seen: set = set()
        self.count = 0
        self.lock = threading.RLock()
        self.acting = True
        self.moves = Counter()

    def add(self, address: str) -> None:
        # Most answer within hours; one in five takes most of a day (and sometimes runs
        # out of time: a bot plays that turn).
        slow = self.random.random() < 0.2
        self.delays[address] = (
            self.random.uniform(12, 20) * 3600 if slow else (self.random.uniform(0.2, 5) * 3600)
        )
        self.by_reply[address] = self.random.choice([0.2, 0.5, 0.8])

    def on_mail(self, message, recipients) -> None:
        """An email arrived: a your-turn email (or a reminder) gets an answer later."""
        to = recipients[0] if recipients else ""
        if to not in self.delays or not self.acting:
            return
        text = message.get_body(("plain",))
        found = SUGGESTION.search(text.get_content() if text else "")
        if not found:
            return
        link = found.group(1)
        with self.lock:
            if link in self.seen:
                return
            self.seen.add(link)
            delay = self.random.expovariate(1 / self.delays[to])
            by_email = self.random.random() < self.by_reply[to] and message["Reply-To"]
            if by_email:
                reply = (to, str(message["Reply-To"]), str(message["Message-ID"]))
                action = ("reply", (*reply, str(message["Subject"]), 0))
            else:
                action = ("page", (link,))
            self.later(self.clock.now() + delay, *action)

    def later(self, at: float, kind: str, args: tuple) -> None:
        with self.lock:
            self.count += 1
            heapq.heappush(self.queue, (at, self.count, kind, args))

    def due(self) -> list:
        now = self.clock.now()
        out = []
        with self.lock:
            while self.queue and self.queue[0][0] <= now:
                at, _n, kind, args = heapq.heappop(self.queue)
                out.append((at, kind, args))
        return out

    def act(self, at: float, kind: str, args: tuple) -> None:
        late = (self.clock.now() - at) / self.clock.speed
        with self.record.lock:
            self.record.lag.append(late)
        try:
            if kind == "reply":
                self.reply(*args)
            else:
                self.page(*args)
        except Exception:
            with self.record.lock:
                self.record.reply_errors.append(traceback.format_exc(limit=3))

    def reply(self, sender: str, reply_to: str, answered: str, subject: str, tries: int) -> None:
        """Reply "1" by SMTP to the receiver, as a mail program does; a 4xx (or no
        receiver) is tried again half an hour later, as an MTA would."""
        message = EmailMessage()
        message["From"], message["To"] = sender, reply_to
        message["Subject"] = f"Re: {subject}"
        message["In-Reply-To"] = message["References"] = answered
        message["Message-ID"] = f"<reply-{self.random.getrandbits(64):x}@people.soak.test>"
        message.set_content("1\n\nOn a day, Railmail wrote:\n> Your turn.\n")
        try:
            with smtplib.SMTP("127.0.0.1", self.ports["receiver"], timeout=30) as smtp:
                smtp.ehlo()
                smtp.mail(sender)
                code, answer = smtp.rcpt(reply_to)
                if code != 250:
                    raise smtplib.SMTPResponseException(code, answer)
                # "250 OK: played", or why not: the receiver's outcome.
                _code, answer = smtp.data(message.as_bytes())
            outcome = "250 " + answer.decode(errors="replace").removeprefix("OK: ")
        except smtplib.SMTPResponseException as refused:
            outcome = f"{refused.smtp_code // 100}xx"
        except (OSError, smtplib.SMTPException):
            outcome = "no connection"
        with self.record.lock:
            self.record.replies[outcome] += 1
        if outcome == "250 played":
            self.moves["by reply"] += 1
        elif outcome in ("4xx", "no connection") and tries < 8:
            self.later(self.clock.now() + 1800, "reply",
                       (sender, reply_to, answered, subject, tries + 1))  # fmt: skip

    def page(self, path: str) -> None:
        """Open the suggestion's link, then post it (the page's button)."""
        status = request(self.ports, self.record, "GET", path, "suggestion page")
        if status == 200:
            status = request(self.ports, self.record, "POST", path, "suggestion move")
            if status == 302:
                self.moves["on the page"] += 1
        if status in (503, None):  # the site asked to come back: later
            self.later(self.clock.now() + 1800, "page", (path,))


def request(ports: dict, record: Record, method: str, path: str, what: str, data=None):
    """One request to gunicorn as the proxy sends it; its answer is recorded."""
    headers = {"Host": HOST, "X-Forwarded-Proto": "https"}
    body = None
    if method == "POST":
        headers |= {"Cookie": f"csrftoken={CSRF}", "Referer": f"https://{HOST}/"}
        body = {"csrfmiddlewaretoken": CSRF, **(data or {})}
    start = time.time()
    try:
        answer = requests.request(
            method, f"http://127.0.0.1:{ports['web']}{path}", headers=headers, data=body,
            allow_redirects=False, timeout=40,
        )  # fmt: skip
        status, retry = answer.status_code, answer.headers.get("Retry-After")
    except requests.RequestException:
        status, retry = None, None
    with record.lock:
        record.http.append((start, time.time(), what, status, retry))
    return status


# --- the faults -----------------------------------------------------------------------


def faults(stack: Stack, mail: MailServer, record: Record, run: float, short: bool, stop):
    """The schedule of faults over ``run`` wall seconds (a thread)."""
    window = min(10.0, max(2.0, run * 0.03))
    plan = (
        [(0.1, "worker"), (0.2, "smtp refuse"), (0.3, "postgres"), (0.45, "smtp hang"),
         (0.55, "redis"), (0.65, "smtp drop")]
        if short else
        [(0.05, "smtp refuse"), (0.12, "worker"), (0.15, "smtp hang"), (0.25, "postgres"),
         (0.32, "redis"), (0.37, "worker"), (0.45, "smtp drop"), (0.55, "smtp refuse"),
         (0.62, "worker"), (0.65, "smtp hang"), (0.75, "postgres"), (0.8, "redis"),
         (0.87, "worker"), (0.9, "smtp drop")]
    )  # fmt: skip
    began = time.time()
    for share, what in plan:
        while time.time() < began + share * run:
            if stop.wait(0.2):
                return
        start = time.time()
        if what == "worker":
            stack.kill("worker")  # SIGKILL, in the middle of whatever it does
            time.sleep(2)
            stack.start("worker")
        elif what == "postgres":
            with stack_held(stack, "postgres"):
                stack.cluster.stop()
                outage_probes(stack, record, "postgres")
                time.sleep(max(0.0, 3 - (time.time() - start)))
                stack.cluster.start()
        elif what == "redis":
            stack.kill("redis")
            outage_probes(stack, record, "redis")
            time.sleep(max(0.0, 2 - (time.time() - start)))
            stack.start("redis")
            wait_for_port(stack.ports["redis"])
        elif what == "smtp refuse":
            mail.stop()
            time.sleep(window)
            mail.start()
        else:
            mail.sink.mode = what.split()[1]
            time.sleep(window)
            mail.sink.mode = "ok"
        with record.lock:
            record.faults[what] += 1
            if what in ("postgres", "redis"):
                record.outages.append((what, start, time.time()))


class stack_held:  # noqa: N801 (a context manager used as a statement)
    def __init__(self, stack: Stack, name: str):
        self.stack, self.name = stack, name

    def __enter__(self):
        self.stack.held.add(self.name)

    def __exit__(self, *exc):
        self.stack.held.discard(self.name)


def outage_probes(stack: Stack, record: Record, what: str) -> None:
    """While ``what`` is away: a page, and the form that emails a sign-in link."""
    address = f"probe-{what}-{len(record.probes)}@people.soak.test"
    for path, method, data in (
        ("/", "GET", None),
        ("/accounts/login/", "POST", {"email": address, "next": ""}),
    ):
        status = request(stack.ports, record, method, path, f"probe {path}", data)
        with record.lock:
            retry = record.http[-1][4]
            record.probes.append((what, f"{method} {path}", status, retry, address))


# --- the run --------------------------------------------------------------------------


def make_games(count: int, seed: int, people: People) -> None:
    """``count`` games, started: the driver writes them through the write path."""
    from games import services
    from games.models import Game

    chooser = random.Random(seed)
    for number in range(count):
        humans = chooser.choice([2, 3, 3, 3, 4])
        bots = chooser.choice([0, 1, 1, 2]) if humans < 4 else chooser.choice([0, 1])
        seats = []
        for n in range(humans):
            # People play several games: about two each.
            address = f"player{chooser.randrange(count * 3 // 2 + 4)}@people.soak.test"
            if any(s.email == address for s in seats):
                address = f"player-{number}-{n}@people.soak.test"
            people.add(address)
            seats.append(services.SeatSpec(f"Player {n + 1}", address))
        for n in range(bots):
            level = chooser.choice(["greedy", "easy"])
            seats.append(services.SeatSpec(f"Bot {n + 1}", is_bot=True, bot_level=level))
        chooser.shuffle(seats)
        services.open_game(
            services.GameSettings(
                board=chooser.choice(["transamerica", "transeuropa"]),
                title=f"Soak {number}",
                time_per_move=timedelta(days=1),
                reminder_hours=(2,),
                on_timeout=Game.OnTimeout.BOT,
                start_now=True,
            ),
            seats,
        )


def copy_schema(source: str, cluster) -> None:
    """Copy the tables (and the record of migrations applied) of the migrated database at
    ``source`` into the soak's own, so that migrate only has its post-migrate work left:
    the short form takes the test run's database (seconds, where migrating takes ten)."""
    tables = subprocess.run(
        ["pg_dump", "--no-owner", "--schema-only", source], check=True, capture_output=True
    ).stdout
    applied = subprocess.run(
        ["pg_dump", "--no-owner", "--data-only", "-t", "django_migrations", source],
        check=True, capture_output=True,
    ).stdout  # fmt: skip
    subprocess.run(
        ["psql", "-q", "-v", "ON_ERROR_STOP=1", f"postgres://postgres@127.0.0.1:{cluster.port}/railmail"],
        input=tables + applied, check=True, capture_output=True,
    )  # fmt: skip


def run(args) -> dict:
    record = Record()
    directory = Path(tempfile.mkdtemp(prefix="railmail-soak-"))
    results: dict = {}
    with ExitStack() as cleanup:
        if args.keep:
            print(f"keeping the logs and mail in {directory}", flush=True)
        else:
            cleanup.callback(shutil.rmtree, directory, ignore_errors=True)
        t0 = time.monotonic()
        cluster = cleanup.enter_context(postgres_cluster())
        cluster.run("createdb", "-h", "127.0.0.1", "-p", str(cluster.port), "-U", "postgres",
                    "railmail")  # fmt: skip
        ports = {"redis": closed_port(), "web": closed_port(), "receiver": closed_port()}
        sink = Sink()
        if args.keep:
            sink.keep = directory / "mail"
            sink.keep.mkdir()
        mail = MailServer(sink)
        mail.start()
        cleanup.callback(mail.stop)
        clock = Clock(directory / "clock.json")
        speed = args.days * 86400 / (args.minutes * 60)
        send_limit = 10 if args.minutes < 2 else 20
        env = production_env(
            f"postgres://postgres@127.0.0.1:{cluster.port}/railmail",
            SITE_URL=f"https://{HOST}",
            CELERY_BROKER_URL=f"redis://127.0.0.1:{ports['redis']}/0",
            EMAIL_BACKEND="notifications.smtp.EmailBackend",
            EMAIL_HOST="127.0.0.1",
            EMAIL_PORT=str(mail.port),
            EMAIL_TIMEOUT="2",
            DEFAULT_FROM_EMAIL=f"Railmail <games@{HOST}>",
            ADMINS=OPERATOR,
            RAILMAIL_INBOUND_DOMAIN=INBOUND,
            RAILMAIL_CLOCK_FILE=str(clock.path),
            RAILMAIL_MINUTE_JOBS_EVERY=str(max(60 / speed, 1.0)),
            RAILMAIL_SEND_TIME_LIMIT=str(send_limit),
            RAILMAIL_VAR_DIR=str(directory / "var"),
            STATIC_ROOT=str(directory / "static"),
            DB_CONN_MAX_AGE="60",
        )
        os.environ.update(env)
        if args.schema_from:
            copy_schema(args.schema_from, cluster)
        setup = [
            subprocess.Popen([PYTHON, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env),
            subprocess.Popen(
                [PYTHON, "manage.py", "collectstatic", "--no-input", "-v0"], cwd=ROOT, env=env
            ),  # fmt: skip
        ]
        stack = Stack(directory, env, cluster, ports)
        stack.start("redis")
        cleanup.callback(stack.stop_all)
        cleanup.callback(lambda: stack.kill("redis"))
        for process in setup:
            if process.wait(timeout=300):
                raise RuntimeError("migrate or collectstatic failed")
        import django

        django.setup()
        from django.db import connections

        # The services start while the games are made (each takes seconds to start).
        for name in ("worker", "beat", "receiver", "web"):
            stack.start(name)
        people = People(clock, ports, record, args.seed)
        sink.on_mail = people.on_mail
        make_games(args.games, args.seed, people)
        connections.close_all()
        wait_for_port(ports["web"])
        wait_for_port(ports["receiver"])
        results["setup seconds"] = round(time.monotonic() - t0, 1)
        print(f"set up in {results['setup seconds']} s; {args.games} games; clock x{speed:.0f}",
              flush=True)  # fmt: skip

        # The week (or day): the clock runs fast, people answer their mail, faults come.
        start_sim = clock.now()
        clock.set(start_sim, speed)
        end_sim = start_sim + args.days * 86400
        wall = args.minutes * 60
        stop = threading.Event()
        schedule = threading.Thread(
            target=faults, args=(stack, mail, record, wall, args.minutes < 2, stop), daemon=True
        )
        schedule.start()
        began = time.time()
        with ThreadPoolExecutor(max_workers=4) as pool:
            while clock.now() < end_sim:
                for at, kind, action in people.due():
                    pool.submit(people.act, at, kind, action)
                stack.supervise()
                time.sleep(0.05)
            people.acting = False
        schedule.join(timeout=120)
        stop.set()
        results["run seconds"] = round(time.time() - began, 1)

        # Every email of the week gets its outcome: the clock runs on until then.
        drained, drain_began = drain(end_sim, max(60 + 6 * send_limit, wall / 4), stack)
        results["drain seconds"] = round(time.time() - drain_began, 1)
        results["drained"] = drained
        stack.stop_all()
        results |= check(record, sink, people, end_sim, env, send_limit)
        results["restarts after death"] = dict(stack.restarts)
    return results


def drain(end_sim: float, bound: float, stack: Stack) -> tuple[bool, float]:
    """Wait (wall time) until every email written in the period is sent, failed, dropped
    or reported stuck: its backoff, a released claim and the stuck report need time."""
    from django.db import connections
    from django.db.models import Q

    from notifications.models import Message

    began = time.time()
    end = datetime.fromtimestamp(end_sim, UTC)
    while time.time() < began + bound:
        stack.supervise()
        try:
            open_rows = Message.objects.filter(created_at__lte=end).filter(
                Q(status__in=["pending", "claimed"])
                | Q(status="sending", stuck_reported_at__isnull=True)
            )
            if not open_rows.exists():
                return True, began
            print(f"draining: {open_rows.count()} email(s) of the period still open", flush=True)
        except Exception:
            connections.close_all()
        time.sleep(5)
    return False, began


def check(record: Record, sink: Sink, people: People, end_sim: float, env, send_limit) -> dict:
    from django.db.models import Count

    from games import rules
    from games.models import Event, Game
    from notifications import compose
    from notifications.models import Message

    failures: list[str] = []
    out: dict = {}
    games = list(Game.objects.all())
    replayed = 0
    for game in games:
        try:
            rules.replay(game.engine_events())
            replayed += 1
        except Exception as exc:
            failures.append(f"game {game.pk} does not replay: {exc}")
    out["games"] = len(games)
    out["games replayed"] = replayed
    out["games by status"] = dict(Counter(game.status for game in games))
    rebuilt = subprocess.run(
        [PYTHON, "manage.py", "rebuild_projections", "--check"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    out["rebuild_projections"] = rebuilt.stdout.strip().splitlines()[-1:] or [rebuilt.stderr]
    if rebuilt.returncode:
        failures.append(f"rebuild_projections --check: {rebuilt.stdout[-2000:]}")
    moves = Counter(
        dict(Event.objects.values_list("type").annotate(n=Count("pk")).values_list("type", "n"))
    )
    out["events"] = dict(moves)
    out["moves by people"] = dict(people.moves)

    end = datetime.fromtimestamp(end_sim, UTC)
    statuses: Counter = Counter()
    outcome: Counter = Counter()
    listed_reasons: Counter = Counter()
    for row in Message.objects.all().iterator():
        statuses[(row.kind, row.status)] += 1
        times = sink.accepted.get(compose.message_id(row), 0)
        if times > 1:
            failures.append(f"row {row.pk} ({row.kind}) accepted {times} times")
        if row.kind != "your_turn" or row.created_at > end:
            continue
        if row.status == "sent":
            outcome["delivered once" if times == 1 else "marked sent, never accepted"] += 1
            if times != 1:
                failures.append(f"your-turn row {row.pk} is 'sent' but was never accepted")
        elif row.status in ("dropped", "suppressed"):
            outcome[f"not needed ({row.status})"] += 1
        elif row.status == "sending" and row.stuck_reported_at is not None:
            outcome["on the operator's list (in doubt)"] += 1
            listed_reasons[row.error.split(":")[0][:60] or "worker died mid-send"] += 1
        elif row.status == "failed" and row.error:
            outcome["on the operator's list (failed)"] += 1
            listed_reasons[row.error[:60]] += 1
        else:
            outcome[f"unresolved ({row.status})"] += 1
            failures.append(f"your-turn row {row.pk} left {row.status}")
    out["emails by kind and status"] = {f"{k} {s}": n for (k, s), n in sorted(statuses.items())}
    out["your-turn emails due in the period"] = dict(outcome)
    out["operator's list reasons"] = dict(listed_reasons)
    out["messages accepted by the mail server"] = sum(sink.accepted.values())
    out["mail server hung / cut sessions"] = [sink.hung, sink.dropped]

    # HTTP: no 5xx outside the outages; within them only 503 with Retry-After.
    windows = [(start, stop + SETTLE) for _what, start, stop in record.outages]
    statuses_http: Counter = Counter()
    for start, stop, what, status, retry in record.http:
        during = any(a <= stop and start <= b for a, b in windows)
        statuses_http[(what, status, "outage" if during else "normal")] += 1
        if status is None:
            if not during:
                failures.append(f"{what}: no answer at {start:.0f}, outside the outages")
        elif status >= 500 and not (during and status == 503 and retry):
            failures.append(
                f"{what}: {status} (Retry-After {retry}) {'in' if during else 'outside'} an outage"
            )
    out["http"] = {f"{w} {s} ({d})": n for (w, s, d), n in sorted(statuses_http.items(), key=str)}
    out["outage probes"] = [list(p[:4]) for p in record.probes]
    probe_rows = Message.objects.filter(to__in=[p[4] for p in record.probes if "login" in p[1]])
    out["sign-in links asked in outages: sent"] = [
        probe_rows.filter(status="sent").count(),
        probe_rows.count(),
    ]
    out["replies (receiver's answers)"] = dict(record.replies)
    if record.replies.get("5xx"):
        failures.append(f"{record.replies['5xx']} replies refused with a 5xx")
    out["driver errors"] = len(record.reply_errors)
    failures += [f"driver: {e.splitlines()[-1]}" for e in record.reply_errors[:5]]
    out["faults"] = dict(record.faults)
    lag = sorted(record.lag)
    out["people acting late, wall s (median, max)"] = (
        [round(lag[len(lag) // 2], 2), round(lag[-1], 2)] if lag else []
    )
    out["failures"] = failures
    return out


def main() -> int:
    # A wall bound (timeout(1)) or Ctrl-C ends the run through its clean-up: every process
    # it started stops, its cluster and folder go.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", type=float, default=7)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--minutes", type=float, default=25, help="wall time of the period")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="write the counts to this file")
    parser.add_argument(
        "--schema-from", help="a migrated database's URL to copy the tables of (faster)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the logs and mail")
    args = parser.parse_args()
    results = run(args)
    for key, value in results.items():
        print(f"{key}: {value}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, default=str))
    return 1 if results.get("failures") or not results.get("drained") else 0


if __name__ == "__main__":
    sys.exit(main())
