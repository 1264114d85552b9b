"""Django's PostgreSQL backend, checking a kept connection only when it has been idle.

``CONN_HEALTH_CHECKS`` costs a round trip per request; a connection used within
``IDLE_SECONDS`` is trusted. If the server went in that moment, one request gets the
outage page and Django replaces the connection, as for requests in flight.
"""

from __future__ import annotations

import time

from django.db.backends.postgresql import base

IDLE_SECONDS = 1.0


class DatabaseWrapper(base.DatabaseWrapper):
    # Django calls close_if_unusable_or_obsolete() as each request or task starts and ends.
    request_ended_at: float = float("-inf")

    def close_if_unusable_or_obsolete(self) -> None:
        super().close_if_unusable_or_obsolete()
        now = time.monotonic()
        if self.connection is not None and now - self.request_ended_at < IDLE_SECONDS:
            self.health_check_done = True
        self.request_ended_at = now
