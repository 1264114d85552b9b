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
import hashlib
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
# The worker's processes: as many outbox rows may be on the wire at one moment.
CONCURRENCY = 2
# What a delivery records on a row whose message went out whole with no answer back.
NO_ANSWER = "No answer after the whole message was sent"
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
    # The Message-IDs of the messages whose connection was cut after their final dot: the
    # only ones a client may rightly leave in doubt for a cut.
    cut: list = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    async def handle_MAIL(self, server, session, envelope, address, mail_options):
        if self.mode == "hang":
            self.hung += 1
            # Silent until the client gives up (EMAIL_TIMEOUT) and goes, however short the
            # fault's window: a session that hangs must outlast the client's patience.
            for _ in range(600):  # at most 60 s
                if server.transport is None or server.transport.is_closing():
                    break
                await asyncio.sleep(0.1)
        envelope.mail_from = address
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.content, policy=policy.default)
        if self.mode == "drop":
            with self.lock:
                self.dropped += 1
                self.cut.append(str(message["Message-ID"]))
            server.transport.close()  # after the final dot, before the answer
            return "421 closing"
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
            # --preload: the application is imported once, not once a web process.
            "web": [str(BIN / "gunicorn"), "pbem.wsgi", "-b", f"127.0.0.1:{self.ports['web']}",
                    "-w", "2", "--preload", "--timeout", "30", "--graceful-timeout", "5"],
            "worker": [str(BIN / "celery"), "-A", "pbem", "worker", "-c", str(CONCURRENCY),
                       "-l", "WARNING",
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
        """Stop the services all at once: SIGTERM to each process group, SIGKILL to what
        is left after a few seconds (every email of the period has its outcome by now)."""
        names = [name for name in ("beat", "web", "receiver", "worker") if name in self.processes]
        for name in names:
            self.held.add(name)
            with suppress(ProcessLookupError):
                os.killpg(self.processes[name].pid, signal.SIGTERM)
        deadline = time.monotonic() + 5
        for name in names:
            process = self.processes[name]
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                with suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)


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


# The faults over the run, at shares of its wall time. The week's come one after another.
WEEK_FAULTS = [
    [(0.05, "smtp refuse"), (0.12, "worker"), (0.15, "smtp hang"), (0.25, "postgres"),
     (0.32, "redis"), (0.37, "worker"), (0.45, "smtp drop"), (0.55, "smtp refuse"),
     (0.62, "worker"), (0.65, "smtp hang"), (0.75, "postgres"), (0.8, "redis"),
     (0.87, "worker"), (0.9, "smtp drop")],
]  # fmt: skip
# The short form's, in two lanes at once (the services', the mail server's), early in the
# day and those that leave rows waiting on wall-time limits first (a killed worker's
# claims run out after their lease, a cut message is reported after STUCK_AFTER; the
# worker may die by itself when Redis goes), so that they settle within the day.
DAY_FAULTS = [
    [(0.0, "worker"), (0.2, "redis"), (0.4, "postgres")],
    [(0.0, "smtp drop"), (0.3, "smtp refuse"), (0.55, "smtp hang")],
]  # fmt: skip


def faults(
    stack: Stack, mail: MailServer, record: Record, run: float, short: bool, stop
) -> list[threading.Thread]:
    """Start the schedule of faults over ``run`` wall seconds (a thread a lane); return the
    lanes' threads.

    A fault on the mail server stays until it has hit a session (or two more windows
    have passed), and the worker is killed while it delivers (or after three seconds), so
    that none falls on an idle stack.
    """
    window = 1.5 if short else min(10.0, max(2.0, run * 0.03))
    lanes = [
        threading.Thread(
            target=fault_lane,
            args=(plan, stack, mail, record, run, window, short, stop),
            daemon=True,
        )
        for plan in (DAY_FAULTS if short else WEEK_FAULTS)
    ]
    for lane in lanes:
        lane.start()
    return lanes


def fault_lane(plan, stack, mail, record, run, window, short, stop) -> None:
    """The faults of ``plan``, one after another, each no sooner than its share of ``run``
    after mail flows (a first email delivered and recorded, or after 30 s): on a loaded
    machine they would otherwise fall on a stack still starting, and the day could end
    before any turn email is delivered."""
    waiting(lambda rows: rows.filter(status="sent").exists(), 30.0)
    began = time.time()
    for share, what in plan:
        while time.time() < began + share * run:
            if stop.wait(0.1):
                return
        start = time.time()
        if what == "worker":
            waiting(lambda rows: rows.filter(status__in=["claimed", "sending"]).exists(), 3.0)
            start = time.time()
            stack.kill("worker")  # SIGKILL, in the middle of whatever it does
            time.sleep(2)
            stack.start("worker")
        elif what == "postgres":
            stack.cluster.stop()
            outage_probes(stack, record, "postgres")
            time.sleep(max(0.0, (2 if short else 3) - (time.time() - start)))
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
            sink = mail.sink
            counter = "hung" if what == "smtp hang" else "dropped"
            before = getattr(sink, counter)
            sink.mode = what.split()[1]
            time.sleep(window)
            for _ in range(int(window * 2 / 0.1)):  # bounded: two more windows
                if getattr(sink, counter) > before:
                    break
                time.sleep(0.1)
            sink.mode = "ok"
        with record.lock:
            record.faults[what] += 1
            if what in ("postgres", "redis"):
                record.outages.append((what, start, time.time()))


def waiting(until, patience: float) -> bool:
    """Wait (at most ``patience`` wall seconds) until ``until(outbox rows)`` is true."""
    from django.db import connection

    from notifications.models import Message

    try:
        for _ in range(int(patience / 0.05)):
            if until(Message.objects.all()):
                return True
            time.sleep(0.05)
        return False
    except Exception:
        return False
    finally:
        connection.close()  # this thread's: not left to die in the PostgreSQL restart


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


def stop_at_once(stack: Stack) -> None:
    """Stop the soak's cluster without its shutdown checkpoint: its data is thrown away."""
    if stack.cluster is not None:
        with suppress(subprocess.CalledProcessError):  # not running
            stack.cluster.run(
                "pg_ctl", "-D", str(stack.cluster.directory / "data"), "-m", "immediate", "stop"
            )


def own_database(clusters: ExitStack, port: int, source: str | None, directory: Path):
    """The soak's own PostgreSQL cluster on ``port`` (initdb), with database railmail: the
    tables of the migrated database at ``source`` when given, and the rows migrate itself
    writes (the migrations applied, the content types and permissions), so that migrate
    has nothing left to do: the short form takes the test run's database (a second,
    where migrating takes ten)."""
    dumps = []
    if source:  # read while initdb runs
        dumps = [
            subprocess.Popen(
                ["pg_dump", "--no-owner", *what, "-f", str(directory / name), source]
            )
            for name, what in (
                ("tables.sql", ["--schema-only"]),
                ("rows.sql", ["--data-only", "-t", "django_migrations",
                              "-t", "django_content_type", "-t", "auth_permission"]),
            )
        ]  # fmt: skip
    cluster = clusters.enter_context(postgres_cluster(port=port))
    cluster.run("createdb", "-h", "127.0.0.1", "-p", str(cluster.port), "-U", "postgres",
                "railmail")  # fmt: skip
    if dumps:
        if any(dump.wait(timeout=120) for dump in dumps):
            raise RuntimeError(f"pg_dump of {source} failed")
        subprocess.run(
            ["psql", "-q", "-v", "ON_ERROR_STOP=1", "-f", str(directory / "tables.sql"),
             "-f", str(directory / "rows.sql"),
             f"postgres://postgres@127.0.0.1:{cluster.port}/railmail"],
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip
    return cluster


def collect_static(target: Path) -> None:
    """Collect the static files at ``target``: a link to a collection kept between runs
    (in the temporary folder, named by a digest of every source file's name, size and
    time), as collecting and compressing them takes seconds of the short form's thirty."""
    from importlib.metadata import version

    from django.conf import settings
    from django.contrib.staticfiles.finders import get_finders
    from django.core.management import call_command
    from django.test.utils import override_settings

    digest = hashlib.sha256(
        f"{settings.STORAGES['staticfiles']}{version('django')}{version('whitenoise')}".encode()
    )
    for finder in get_finders():
        for path, storage in sorted(finder.list([]), key=lambda found: found[0]):
            stat = os.stat(storage.path(path))
            digest.update(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
    kept = Path(tempfile.gettempdir()) / "railmail-soak-static" / digest.hexdigest()[:20]
    if not kept.is_dir():
        partial = kept.with_name(f"{kept.name}.{os.getpid()}")
        shutil.rmtree(partial, ignore_errors=True)
        with override_settings(STATIC_ROOT=str(partial)):
            call_command("collectstatic", interactive=False, verbosity=0)
        try:
            partial.rename(kept)
        except OSError:  # another run kept the same collection first
            shutil.rmtree(partial, ignore_errors=True)
    target.symlink_to(kept, target_is_directory=True)


def run(args) -> dict:
    record = Record()
    directory = Path(tempfile.mkdtemp(prefix="railmail-soak-"))
    results: dict = {}
    phases = results["phases (wall s from the start)"] = {}
    t0 = time.monotonic()

    def mark(name: str) -> None:
        phases[name] = round(time.monotonic() - t0, 1)

    with ExitStack() as cleanup:
        if args.keep:
            print(f"keeping the logs and mail in {directory}", flush=True)
        else:
            cleanup.callback(shutil.rmtree, directory, ignore_errors=True)
        clusters = ExitStack()  # the cluster stops after the services (last in, first out)
        cleanup.callback(clusters.close)
        ports = {
            "postgres": closed_port(), "redis": closed_port(), "web": closed_port(),
            "receiver": closed_port(),
        }  # fmt: skip
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
            f"postgres://postgres@127.0.0.1:{ports['postgres']}/railmail",
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
        stack = Stack(directory, env, None, ports)
        cleanup.callback(stop_at_once, stack)
        cleanup.callback(lambda: stack.kill("redis"))
        cleanup.callback(stack.stop_all)

        # Everything at once: the cluster is made while Redis, the worker and the receiver
        # start (they touch the database only for work, and none comes before the games)
        # and this process imports Django and collects the static files.
        with ThreadPoolExecutor(max_workers=1) as setting_up:
            database = setting_up.submit(
                own_database, clusters, ports["postgres"], args.schema_from, directory
            )
            for name in ("redis", "worker", "receiver"):
                stack.start(name)
            import django

            django.setup()
            from django.core.management import call_command
            from django.db import connections

            collect_static(directory / "static")
            stack.start("web")  # its static files are in place
            mark("static files")
            stack.cluster = database.result()
        mark("database")
        # Nothing to apply when the tables were copied; all of it for the week.
        call_command("migrate", verbosity=0, interactive=False)
        stack.start("beat")  # its minute jobs need the tables
        mark("migrated")
        wait_for_port(ports["redis"])
        people = People(clock, ports, record, args.seed)
        sink.on_mail = people.on_mail
        make_games(args.games, args.seed, people)
        connections.close_all()
        mark("games")
        wait_for_port(ports["web"])
        wait_for_port(ports["receiver"])
        mark("services up")
        results["setup seconds"] = round(time.monotonic() - t0, 1)
        print(f"set up in {results['setup seconds']} s; {args.games} games; clock x{speed:.0f}",
              flush=True)  # fmt: skip

        # The week (or day): the clock runs fast, people answer their mail, faults come.
        start_sim = clock.now()
        clock.set(start_sim, speed)
        end_sim = start_sim + args.days * 86400
        wall = args.minutes * 60
        stop = threading.Event()
        lanes = faults(stack, mail, record, wall, args.minutes < 2, stop)
        began = time.time()
        with ThreadPoolExecutor(max_workers=4) as pool:
            while clock.now() < end_sim:
                for at, kind, action in people.due():
                    pool.submit(people.act, at, kind, action)
                stack.supervise()
                time.sleep(0.05)
            people.acting = False
        for lane in lanes:
            lane.join(timeout=120)
        stop.set()
        results["run seconds"] = round(time.time() - began, 1)
        mark("period over")

        # Every email of the week gets its outcome: the clock runs on until then.
        drained, drain_began = drain(end_sim, max(60 + 6 * send_limit, wall / 4), stack, record)
        results["drain seconds"] = round(time.time() - drain_began, 1)
        results["drained"] = drained
        mark("drained")
        stack.stop_all()
        mark("services stopped")
        results |= check(record, sink, people, end_sim, directory, stack.restarts["worker"])
        mark("checked")
        results["restarts after death"] = dict(stack.restarts)
    return results


def drain(end_sim: float, bound: float, stack: Stack, record: Record) -> tuple[bool, float]:
    """Wait (wall time) until every email written in the period (and every sign-in link
    asked in an outage, whenever it came) is sent, failed, dropped or reported stuck: its
    backoff, a released claim and the stuck report need time."""
    from django.db import connections
    from django.db.models import Q

    from notifications.models import Message

    began = time.time()
    told = began
    end = datetime.fromtimestamp(end_sim, UTC)
    while time.time() < began + bound:
        stack.supervise()
        try:
            open_rows = Message.objects.filter(
                Q(created_at__lte=end) | Q(to__in=[probe[4] for probe in record.probes])
            ).filter(
                Q(status__in=["pending", "claimed"])
                | Q(status="sending", stuck_reported_at__isnull=True)
            )
            if not open_rows.exists():
                return True, began
            if time.time() >= told + 5:
                told = time.time()
                print(f"draining: {open_rows.count()} email(s) of the period still open",
                      flush=True)  # fmt: skip
        except Exception:
            connections.close_all()
        time.sleep(0.25)
    return False, began


def check(
    record: Record, sink: Sink, people: People, end_sim: float, directory: Path, deaths: int
) -> dict:
    """The checks (failures) and the counts; ``deaths``: the worker's deaths by itself."""
    import io

    from django.core.management import CommandError, call_command
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
    said, complained = io.StringIO(), io.StringIO()
    try:
        call_command("rebuild_projections", "--check", stdout=said, stderr=complained)
    except CommandError:
        failures.append(f"rebuild_projections --check: {said.getvalue()[-2000:]}")
    out["rebuild_projections"] = said.getvalue().strip().splitlines()[-1:] or [
        complained.getvalue()
    ]
    moves = Counter(
        dict(Event.objects.values_list("type").annotate(n=Count("pk")).values_list("type", "n"))
    )
    out["events"] = dict(moves)
    out["moves by people"] = dict(people.moves)

    # Every email of the period: accepted exactly once, not needed, or on the operator's
    # list with its reason (failed, or left "sending" and reported). None went twice.
    end = datetime.fromtimestamp(end_sim, UTC)
    statuses: Counter = Counter()
    outcome: Counter = Counter()
    listed_reasons: Counter = Counter()
    in_doubt: Counter = Counter()
    batches: Counter = Counter()  # rows in doubt by the delivery that claimed them
    probes = {p[4] for p in record.probes if "login" in p[1]}
    signing_in: Counter = Counter()
    cut = Counter(sink.cut)
    for row in Message.objects.all().iterator():
        statuses[(row.kind, row.status)] += 1
        message_id = compose.message_id(row)
        times = sink.accepted.get(message_id, 0)
        if times > 1:
            failures.append(f"row {row.pk} ({row.kind}) accepted {times} times")
        if row.status == "sending" and row.stuck_reported_at is not None:
            # Only a message on the wire may be in doubt: one the mail server cut after its
            # end (its own record says which), or one a connection when a worker died or
            # lost its database, or the mail server stopped, mid-send.
            cut_here = row.error.startswith(NO_ANSWER) and cut[message_id]
            in_doubt["cut by the mail server" if cut_here else "other"] += 1
            # A delivery (its claim) has one connection: one row on the wire at a time.
            batches[row.claim] += 1
        if row.created_at > end and row.to not in probes:
            continue
        if row.status == "sent":
            ended = "delivered once" if times == 1 else "marked sent, never accepted"
            if times != 1:
                failures.append(f"{row.kind} row {row.pk} is 'sent' but was never accepted")
        elif row.status in ("dropped", "suppressed"):
            ended = f"not needed ({row.status})"
        elif row.status == "sending" and row.stuck_reported_at is not None:
            ended = "on the operator's list (in doubt)"
            reason = row.error.split(":")[0][:60] or "no answer recorded (worker died)"
        elif row.status == "failed" and row.error:
            ended = "on the operator's list (failed)"
            reason = row.error[:60]
        else:
            ended = f"unresolved ({row.status})"
            failures.append(f"{row.kind} row {row.pk} left {row.status}")
        if row.to in probes:
            signing_in[ended] += 1
        if row.kind == "your_turn":
            outcome[ended] += 1
            if ended.startswith("on the operator's list"):
                listed_reasons[reason] += 1
    out["emails by kind and status"] = {f"{k} {s}": n for (k, s), n in sorted(statuses.items())}
    out["your-turn emails due in the period"] = dict(outcome)
    out["operator's list reasons"] = dict(listed_reasons)
    out["messages accepted by the mail server"] = sum(sink.accepted.values())
    out["mail server hung / cut sessions"] = [sink.hung, sink.dropped]
    # Sign-in links asked while PostgreSQL or Redis was away (the form answered): each
    # handed to the mail server once the outage was over, so delivered once, or in doubt
    # if the mail server then cut its connection.
    out["sign-in links asked in outages"] = {
        "asked": sum(signing_in.values()),
        "delivered once": signing_in["delivered once"],
        "on the operator's list": sum(
            n for ended, n in signing_in.items() if ended.startswith("on the operator's list")
        ),
    }
    # A worker's process has one connection, so one message on the wire: at most that
    # many rows in doubt each time a worker dies (killed, at its hard time limit, by
    # itself), the database goes before a batch's answers are written, or the mail server
    # stops (refusing) with connections open.
    worker_log = directory / "worker.log"
    hard_limits = (
        worker_log.read_text(errors="replace").count("Hard time limit")
        if worker_log.exists()
        else 0
    )
    losses = sum(record.faults[what] for what in ("worker", "postgres", "smtp refuse"))
    losses += deaths + hard_limits
    failures += [
        f"{n} rows of one delivery (claim {claim}) left in doubt: only the one on the wire may be"
        for claim, n in batches.items()
        if n > 1
    ]
    out["in doubt (left 'sending', reported)"] = {
        "cut by the mail server": in_doubt["cut by the mail server"],
        "other": in_doubt["other"],
        "other, at most": CONCURRENCY * losses,
        "most of one delivery": max(batches.values(), default=0),
    }
    if in_doubt["other"] > CONCURRENCY * losses:
        failures.append(
            f"{in_doubt['other']} row(s) left 'sending' with no cut connection to show for it, "
            f"more than one a connection for {losses} worker death(s), database restart(s) "
            "and mail server stop(s)"
        )

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
    t0 = time.monotonic()
    results = run(args)
    results["seconds in all, with the clean-up"] = round(time.monotonic() - t0, 1)
    for key, value in results.items():
        print(f"{key}: {value}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, default=str))
    return 1 if results.get("failures") or not results.get("drained") else 0


if __name__ == "__main__":
    sys.exit(main())
