import signal
import time

from django.core.management.base import BaseCommand

from games.tasks import scan_clock
from notifications.tasks import send_reminders_and_digests, sweep_outbox


class Command(BaseCommand):
    help = (
        "Run the periodic jobs (deadline scan, outbox sweep, digests) every minute, in "
        "the foreground. For local development, where there is no Celery beat; "
        "production runs them from Celery beat (see deploy/)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--once", action="store_true", help="Run the jobs once and exit.")
        parser.add_argument(
            "--interval", type=float, default=60.0, help="Seconds between runs (default 60)."
        )

    def handle(self, *args, once: bool, interval: float, **options):
        stopping = False

        def stop(signum, frame):
            nonlocal stopping
            stopping = True

        # make run stops this process with SIGTERM; Ctrl-C sends SIGINT.
        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        if not once:
            self.stdout.write(f"periodic jobs: every {interval:g} s (Ctrl-C stops)")
            self.stdout.flush()
        while not stopping:
            started = time.monotonic()
            # The same tasks Celery beat queues in production, run here in-process.
            report = {**scan_clock(), **send_reminders_and_digests(), **sweep_outbox()}
            done = {name: count for name, count in report.items() if count}
            if done or once:
                self.stdout.write(f"periodic jobs: {done or 'nothing to do'}")
            if once:
                return
            # Sleep in short steps so that a stop request is answered at once.
            while not stopping and time.monotonic() - started < interval:
                time.sleep(0.2)
        self.stdout.write("periodic jobs stopped")
