"""The Celery app of the worker process that test_worker.py kills in the middle of a send.

Run as ``celery -A tests.notifications.worker_process worker``: the project's app, with
the broker's transport options the test chose (its own keys for unacknowledged messages,
so no other test's worker restores them), and an email backend that never returns.
"""

import json
import os
import time
from pathlib import Path

from django.core.mail.backends.base import BaseEmailBackend

from pbem.celery import app

app.conf.broker_transport_options = json.loads(os.environ["RAILMAIL_TEST_TRANSPORT_OPTIONS"])


class HangingBackend(BaseEmailBackend):
    """Says that sending has begun (a file), then hangs until the test kills the process."""

    def send_messages(self, email_messages) -> int:
        Path(os.environ["RAILMAIL_TEST_SENDING_MARKER"]).write_text(email_messages[0].subject)
        time.sleep(120)  # bounded: the test kills the process long before
        return 0


__all__ = ["app", "HangingBackend"]
