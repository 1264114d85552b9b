"""The minute's periodic jobs at a chosen moment, run in-process as Celery beat queues them."""

from datetime import datetime

from games.tasks import scan_clock
from notifications.tasks import send_reminders_and_digests


def run_minute_jobs(now: datetime) -> dict[str, int]:
    """Run the clock scan, then the reminders and digests, as at ``now``; merge reports."""
    at = now.isoformat()
    return {**scan_clock(at), **send_reminders_and_digests(at)}
