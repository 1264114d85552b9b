"""The minute's periodic jobs at a chosen moment, run in-process as Celery beat queues them."""

from datetime import datetime

from games.tasks import scan_clock
from notifications.tasks import send_reminders_and_digests, sweep_outbox


def run_minute_jobs(now: datetime) -> dict[str, int]:
    """Run the clock scan, the reminders and digests, then the outbox sweep (which, with
    no broker, sends every email that is due), as at ``now``; merge their reports."""
    at = now.isoformat()
    return {**scan_clock(at), **send_reminders_and_digests(at), **sweep_outbox(at)}
