"""The Celery app of the worker processes that test_worker.py kills in the middle of a
send, or stops at the delivery task's time limits.

Run as ``celery -A tests.notifications.worker_process worker``: the project's app, with
the broker's transport options the test chose (its own keys for unacknowledged messages,
so no other test's worker restores them), and email backends that never return: one that
hangs, one that talks to a mail server that never answers (RAILMAIL_TEST_SMTP_PORT), and
one that ignores the soft time limit.
"""

import json
import os
import time
from pathlib import Path

from celery.exceptions import SoftTimeLimitExceeded
from django.core.mail.backends.base import BaseEmailBackend
from django.core.mail.backends.smtp import EmailBackend as SmtpBackend

from pbem.celery import app

app.conf.broker_transport_options = json.loads(os.environ["RAILMAIL_TEST_TRANSPORT_OPTIONS"])


class HangingBackend(BaseEmailBackend):
    """Says that sending has begun (a file), then hangs until the test kills the process."""

    def send_messages(self, email_messages) -> int:
        Path(os.environ["RAILMAIL_TEST_SENDING_MARKER"]).write_text(email_messages[0].subject)
        time.sleep(120)  # bounded: the test kills the process long before
        return 0


class SilentServerBackend(SmtpBackend):
    """SMTP to the test's server that never answers, with a socket timeout far longer than
    the time limit the test gives the task: only the time limit ends the wait."""

    def __init__(self, **kwargs):
        kwargs.update(host="127.0.0.1", port=int(os.environ["RAILMAIL_TEST_SMTP_PORT"]))
        kwargs.update(timeout=60, use_tls=False, use_ssl=False, username="", password="")
        super().__init__(**kwargs)

    def send_messages(self, email_messages) -> int:
        Path(os.environ["RAILMAIL_TEST_SENDING_MARKER"]).write_text(email_messages[0].subject)
        return super().send_messages(email_messages)


class StubbornBackend(BaseEmailBackend):
    """Hangs and shrugs off the soft time limit: only the hard limit stops it."""

    def send_messages(self, email_messages) -> int:
        Path(os.environ["RAILMAIL_TEST_SENDING_MARKER"]).write_text(email_messages[0].subject)
        for _ in range(60):  # bounded: the hard limit kills the process long before
            try:
                time.sleep(2)
            except SoftTimeLimitExceeded:
                continue
        return 0


__all__ = ["app", "HangingBackend", "SilentServerBackend", "StubbornBackend"]
