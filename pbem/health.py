"""Health checks: ``/health/live`` for load balancers, ``/health/`` for monitors.

    /health/live  the process answers and its database does (nothing else: a load
                  balancer must not take every web process out because Redis blinked)
    /health/      also the broker, the time since the last minute scan, and how overdue
                  the oldest pending email is against its next attempt

Each answers 200 with a line per check, or 503 naming what failed; never a secret (no
URL, no address, no error text from a driver). The middleware answers them before any
other middleware runs, so they pass the host check (load balancers ask by IP address),
the HTTPS redirect (they ask over plain HTTP) and the rate limits.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.db import connection
from django.db.models import Min
from django.http import HttpRequest, HttpResponse

from games.services import clock
from helpers import clock_source
from notifications.models import Message
from pbem.celery import app as celery_app

# The minute scan is late after this long: beat has stopped, or its worker.
SCAN_LATE_AFTER = timedelta(minutes=5)
# An email is late when it is pending this long past its next attempt (the minute's sweep
# hands every row that is due to delivery; this is well beyond it).
EMAIL_LATE_AFTER = timedelta(minutes=15)


def check_database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return "ok"


def check_broker() -> str:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return "ok (tasks run in-process)"
    with celery_app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=2)
    return "ok"


def check_minute_scan() -> str:
    last = clock.last_scan()
    if last is None:
        raise HealthProblem("the minute scan has never run")
    age = clock_source.now() - last
    if age > SCAN_LATE_AFTER:
        raise HealthProblem(f"the last minute scan was {int(age.total_seconds())} s ago")
    return f"ok, {int(age.total_seconds())} s ago"


def check_outbox() -> str:
    oldest = Message.objects.filter(status=Message.Status.PENDING).aggregate(
        oldest=Min("next_attempt_at")
    )["oldest"]
    if oldest is None:
        return "ok, nothing pending"
    overdue = max(clock_source.now() - oldest, timedelta(0))
    if overdue > EMAIL_LATE_AFTER:
        raise HealthProblem(f"the oldest pending email is {int(overdue.total_seconds())} s late")
    return f"ok, oldest pending email {int(overdue.total_seconds())} s past its attempt"


class HealthProblem(Exception):
    """A check that ran and found something wrong; its message is safe to show."""


LIVE: dict[str, Callable[[], str]] = {"database": check_database}
FULL: dict[str, Callable[[], str]] = {
    **LIVE,
    "broker": check_broker,
    "minute scan": check_minute_scan,
    "outbox": check_outbox,
}


def run_checks(checks: dict[str, Callable[[], str]]) -> HttpResponse:
    lines, failed = [], False
    for name, check in checks.items():
        try:
            lines.append(f"{name}: {check()}")
        except HealthProblem as problem:
            lines.append(f"{name}: FAILED: {problem}")
            failed = True
        except Exception as error:  # an outage; its text may hold hosts or credentials
            lines.append(f"{name}: FAILED: {type(error).__name__}")
            failed = True
    response = HttpResponse("\n".join(lines) + "\n", content_type="text/plain; charset=utf-8")
    response.status_code = 503 if failed else 200
    response["Cache-Control"] = "no-store"
    return response


PATHS = {"/health/live": LIVE, "/health/live/": LIVE, "/health": FULL, "/health/": FULL}


class HealthCheckMiddleware:
    """Answer the health checks first of all (see the module's notes)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        checks = PATHS.get(request.path_info)
        if checks is not None and request.method in ("GET", "HEAD"):
            return run_checks(checks)
        return self.get_response(request)
