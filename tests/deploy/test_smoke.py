"""The whole stack, as deployed: a smoke test of a real game played by email.

From the installed wheel: PostgreSQL migrated, gunicorn, a Celery worker and beat on
Redis, and an SMTP server of the test's own. A player signs in through the link that
arrives by SMTP, creates a game over HTTP inviting two others, and the three play their
first moves through the seat links taken from the emails. Every email arrives exactly
once. Every process started here is stopped, whatever happens.
"""

from __future__ import annotations

import email
import email.policy
import html
import os
import re
import signal
import subprocess
import time
import uuid
from contextlib import ExitStack, suppress
from email.message import EmailMessage
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import pytest
import redis
import requests
from django.db import connection

from tests.faults import closed_port
from tests.mail_servers import SmtpHandler, smtp_server

# With the packaging test, on one test worker: they share the wheel and its virtualenv.
pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("installed_wheel")]

WAIT = 30  # seconds for any one thing to happen


def wait_for(condition, what: str, timeout: float = WAIT):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if result := condition():
            return result
        time.sleep(0.05)
    raise AssertionError(f"gave up after {timeout} s waiting for {what}")


class Processes:
    """Background processes, each in a session of its own, killed with their children on
    the way out (nothing is left to do then: the emails were counted) and waited for."""

    def __init__(self, env: dict, cwd: Path, logs: Path):
        self.env, self.cwd, self.logs = env, cwd, logs
        self.running: list[subprocess.Popen] = []
        self.log_of: dict[int, Path] = {}  # by process id: its output

    def start(self, *command) -> subprocess.Popen:
        log = self.logs / f"{len(self.running)}.log"
        with log.open("w") as out:
            proc = subprocess.Popen(
                command,
                env=self.env,
                cwd=self.cwd,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.running.append(proc)
        self.log_of[proc.pid] = log
        return proc

    def finish(self, proc: subprocess.Popen) -> None:
        """Wait for a one-off command (the migrations) to succeed."""
        assert proc.wait(timeout=300) == 0, self.log_of[proc.pid].read_text()

    def still_running(self, *procs: subprocess.Popen) -> bool:
        """True, or fails with the output of one that has exited (e.g. could not start)."""
        for proc in procs:
            assert proc.poll() is None, self.log_of[proc.pid].read_text()
        return True

    def stop(self) -> None:
        for proc in self.running:
            with suppress(ProcessLookupError):  # its session already gone
                os.killpg(proc.pid, signal.SIGKILL)
        for proc in self.running:
            proc.wait(timeout=10)


class Mailbox:
    """The emails the SMTP server took, parsed."""

    def __init__(self, handler: SmtpHandler):
        self.handler = handler
        self.parsed: list[EmailMessage] = []

    def all(self) -> list[EmailMessage]:
        # Each email is parsed once: the waits below ask many times a second.
        for raw in self.handler.received[len(self.parsed) :]:
            self.parsed.append(email.message_from_string(raw, policy=email.policy.default))
        return list(self.parsed)

    def to(self, address: str) -> list[EmailMessage]:
        return [m for m in self.all() if address in m["To"]]

    def wait(self, address: str, count: int) -> EmailMessage:
        """The ``count``-th email to ``address``, waiting for it to arrive."""
        found = wait_for(lambda: len(self.to(address)) >= count and self.to(address), address)
        return found[count - 1]


def text_of(message: EmailMessage) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()


class Browser:
    """A player's HTTP client, talking to gunicorn as nginx would forward it."""

    def __init__(self, port: int):
        self.base = f"http://127.0.0.1:{port}"
        self.session = requests.Session()
        self.session.headers.update({"X-Forwarded-Proto": "https", "Host": "127.0.0.1"})

    def local(self, url: str) -> str:
        """A link from an email (https://127.0.0.1/...), as a request to gunicorn."""
        return self.base + urlsplit(url).path

    def get(self, url: str) -> requests.Response:
        response = self.session.get(self.local(url), allow_redirects=False, timeout=WAIT)
        assert response.status_code == 200, (url, response.status_code)
        self.keep_cookies()
        return response

    def keep_cookies(self) -> None:
        # The site marks its cookies Secure (it is HTTPS behind nginx); this client talks
        # to gunicorn directly, over loopback, as nginx would.
        for cookie in self.session.cookies:
            cookie.secure = False

    def post(self, url: str, data: dict) -> requests.Response:
        token = self.session.cookies.get("csrftoken")
        response = self.session.post(
            self.local(url),
            data={"csrfmiddlewaretoken": token, **data},
            headers={"Referer": "https://127.0.0.1/"},
            allow_redirects=False,
            timeout=WAIT,
        )
        assert response.status_code in (200, 302), (url, response.status_code, response.text)
        self.keep_cookies()
        return response


def first_option(page: str, name: str) -> str | None:
    select = re.search(rf'<select name="{name}".*?</select>', page, re.S)
    if select is None:
        return None
    values = re.findall(r'<option value="(\d+)"', select.group(0))
    return values[0] if values else None


def play_a_move(browser: Browser, link: str) -> None:
    """Open the board by ``link`` and play the first legal pick the page offers."""
    page = browser.get(link).text
    version = re.search(r'name="version" value="(\d+)"', page).group(1)
    point = first_option(page, "point")
    move = {"point": point} if point else {"line1": first_option(page, "line1")}
    response = browser.post(link, {"version": version, **move})
    assert response.status_code == 302, response.text


def seat_link(message: EmailMessage) -> str:
    return html.unescape(re.search(r"https://127\.0\.0\.1/s/[^/\s]+/", text_of(message)).group(0))


def test_a_game_played_by_email_on_the_whole_stack(installed, static_root, tmp_path):
    db = connection.settings_dict
    server = f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}"
    name = f"railmail_smoke_{uuid.uuid4().hex[:8]}"
    redis_url = "redis://127.0.0.1:6379/9"
    redis.Redis.from_url(redis_url).flushdb()
    port = closed_port()
    with ExitStack() as stack:
        with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
            admin.execute(f"CREATE DATABASE {name}")
        stack.callback(drop_database, f"{server}/postgres", name)
        smtp_port, handler = stack.enter_context(smtp_server())
        mailbox = Mailbox(handler)
        env = installed.production_env(
            SITE_URL="https://127.0.0.1",
            DATABASE_URL=f"{server}/{name}",
            CELERY_BROKER_URL=redis_url,
            EMAIL_HOST="127.0.0.1",
            EMAIL_PORT=str(smtp_port),
            EMAIL_TIMEOUT="10",
            STATIC_ROOT=str(static_root),  # collected by tests/deploy/conftest.py
            DEFAULT_FROM_EMAIL="Railmail <games@railmail.example.org>",
            # Your-turn emails at once, each queued as its move commits (one that waits
            # its grace is queued by the minute's sweep: tests/notifications/test_worker).
            RAILMAIL_TURN_EMAIL_GRACE="0",
        )
        # Everything starts at once, to share the startup time: the migrations, gunicorn,
        # the worker and beat (all three wait for requests or the queue, not the tables).
        services = Processes(env, installed.home, tmp_path)
        stack.callback(services.stop)
        python = installed.bin / "python"
        migrate = services.start(python, "-m", "django", "migrate", "--no-input", "-v0")
        bind = f"127.0.0.1:{port}"
        web = services.start(
            python, "-m", "gunicorn", "pbem.wsgi", "--bind", bind, "--workers", "2"
        )
        worker = services.start(
            python, "-m", "celery", "-A", "pbem", "worker", "--concurrency", "2"
        )
        beat = services.start(python, "-m", "celery", "-A", "pbem", "beat", "-s", tmp_path / "beat")
        services.finish(migrate)
        dana = Browser(port)
        wait_for(
            lambda: services.still_running(web, worker, beat) and health(dana),
            "gunicorn to answer its health check",
        )

        # The front page (tests/deploy/test_packaging.py serves one that needs no tables),
        # then sign in by the link that arrives over SMTP.
        dana.get("https://127.0.0.1/")
        dana.get("https://127.0.0.1/accounts/login/")
        dana.post("https://127.0.0.1/accounts/login/", {"email": "dana@example.org"})
        sign_in = re.search(
            r"https://127\.0\.0\.1/accounts/login/[^/\s]+/",
            text_of(mailbox.wait("dana@example.org", 1)),
        ).group(0)
        dana.get(sign_in)
        assert dana.post(sign_in, {}).status_code == 302

        # A new game, started at once, inviting two players by email.
        dana.get("https://127.0.0.1/new/")
        created = dana.post(
            "https://127.0.0.1/new/",
            {
                "title": "Smoke test",
                "board": "transamerica",
                "time_per_move": "48",
                "reminder_hours": ["24", "2"],
                "on_timeout": "bot",
                "bot_takeover_after": "3",
                "creator_plays": "on",
                "start_when": "now",
                "players-TOTAL_FORMS": "2",
                "players-INITIAL_FORMS": "0",
                "players-MIN_NUM_FORMS": "0",
                "players-MAX_NUM_FORMS": "6",
                "players-0-name": "Bea",
                "players-0-email": "bea@example.org",
                "players-1-name": "Cy",
                "players-1-email": "cy@example.org",
            },
        )
        assert created.status_code == 302

        # Each plays through the link in their your-turn email, which follows the sign-in
        # link (Dana's first email) and the invitations (Bea's and Cy's): a starting marker
        # each, then Dana's first line.
        order = ["dana@example.org", "bea@example.org", "cy@example.org"]
        players = {address: Browser(port) for address in order}
        seen = dict.fromkeys(order, 1)
        assert "invited" in mailbox.wait("bea@example.org", 1)["Subject"]
        for turn in range(4):
            address = order[turn % 3]
            seen[address] += 1
            message = mailbox.wait(address, seen[address])
            assert "Your turn" in message["Subject"], message["Subject"]
            play_a_move(players[address], seat_link(message))

        # Every email the outbox sent arrived, exactly once.
        with psycopg.connect(f"{server}/{name}") as conn:

            def settled():
                rows = conn.execute(
                    "SELECT status, count(*) FROM notifications_message GROUP BY status"
                ).fetchall()
                return dict(rows) if set(dict(rows)) == {"sent"} else None

            statuses = wait_for(settled, "every email to be sent")
            ids = conn.execute("SELECT id FROM notifications_message ORDER BY id").fetchall()
        received = [m["Message-ID"] for m in mailbox.all()]
        assert len(received) == len(set(received)) == statuses["sent"] == len(ids)
        assert services.still_running(web, worker, beat)  # all along


def drop_database(admin: str, name: str) -> None:
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def health(browser: Browser) -> bool:
    try:
        return requests.get(browser.base + "/health/live", timeout=2).status_code == 200
    except requests.RequestException:  # not listening yet, or still starting its workers
        return False
