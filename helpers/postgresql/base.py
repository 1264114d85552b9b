"""Django's PostgreSQL backend, checking a kept connection only when it has been idle.

With ``CONN_HEALTH_CHECKS``, Django sends ``SELECT 1`` before the first query of every
request (and every Celery task) that reuses a connection, so that one the server closed
while it was kept (a restart, an idle timeout) is replaced rather than failing the
request. That is a round trip more for every request that reads the database: about a
twentieth of a move's time. Here a connection that ended its last request less than
``IDLE_SECONDS`` ago goes unchecked, and one idle for longer, the case the check is for,
is checked as before. The server would have to have gone in that moment: then one
request gets the outage page (503 with Retry-After, pbem.middleware), and its error has
Django replace the connection as it ends (``errors_occurred``), as it does for the
requests that were in flight when the server went.

    DATABASES = {"default": {"ENGINE": "helpers.postgresql", ...}}  # and CONN_HEALTH_CHECKS
"""

from __future__ import annotations

import time

from django.db.backends.postgresql import base

# How long a kept connection may rest between requests and still be trusted unchecked.
IDLE_SECONDS = 1.0


class DatabaseWrapper(base.DatabaseWrapper):
    # When this connection's last request (or task) ended: Django calls
    # close_if_unusable_or_obsolete() as each one starts and ends.
    request_ended_at: float = float("-inf")

    def close_if_unusable_or_obsolete(self) -> None:
        super().close_if_unusable_or_obsolete()
        now = time.monotonic()
        if self.connection is not None and now - self.request_ended_at < IDLE_SECONDS:
            self.health_check_done = True
        self.request_ended_at = now
