"""The operator's logs: one ``key=value`` line per request and per task, and error emails
to ADMINS, never with a secret in them (links carry tokens in their paths).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils.log import AdminEmailHandler

# Paths whose next part is a token; deploy/nginx-railmail.conf redacts the same ones.
TOKEN_PATH = re.compile(r"^(/(?:s|accounts/login|mail/unsubscribe|mail/seat)/)[^/?#]+")

request_log = logging.getLogger("railmail.requests")
task_log = logging.getLogger("railmail.tasks")


def redact_path(path: str) -> str:
    """``path`` with any token in it replaced by ``<token>``."""
    return TOKEN_PATH.sub(r"\1<token>", path)


def line(**fields) -> str:
    """``key=value`` pairs, values quoted where they hold spaces."""
    return " ".join(
        f"{key}={value!r}" if " " in str(value) else f"{key}={value}"
        for key, value in fields.items()
        if value is not None
    )


class RequestLogMiddleware:
    """Logs each request, with the game and seat a view put in ``request.log_context``."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        context = getattr(request, "log_context", {})
        request_log.info(
            line(
                method=request.method,
                path=redact_path(request.path),
                status=response.status_code,
                ms=round((time.perf_counter() - started) * 1000, 1),
                game=context.get("game"),
                seat=context.get("seat"),
            )
        )
        return response


class RedactingAdminEmailHandler(AdminEmailHandler):
    """Django's error email to ADMINS without the request, whose path, cookies and
    headers may carry a token."""

    def emit(self, record: logging.LogRecord) -> None:
        record.msg = redact_path_in(record.getMessage())
        record.args = ()
        record.request = None
        super().emit(record)


def redact_path_in(text: str) -> str:
    """``text`` with every token-bearing path in it redacted."""
    return re.sub(r"/(?:s|accounts/login|mail/unsubscribe|mail/seat)/[^/\s?#]+", _redact, text)


def _redact(match: re.Match) -> str:
    return redact_path(match.group(0))


def log_task(task_name: str, task_id: str, args: tuple, state: str, seconds: float) -> None:
    """One line per finished task; only its numeric arguments, never a text one."""
    ids = [arg for arg in args if isinstance(arg, int) and not isinstance(arg, bool)]
    task_log.info(
        line(
            task=task_name,
            id=task_id,
            outcome=state.lower(),
            ms=round(seconds * 1000, 1),
            ids=",".join(map(str, ids)) or None,
        )
    )
