import os
import signal
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from notifications.models import Message
from tests.factories import GameFactory

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
def test_run_periodic_once_sweeps_and_scans():
    GameFactory()
    out = StringIO()
    call_command("run_periodic", "--once", stdout=out)
    assert "periodic jobs:" in out.getvalue()
    assert Message.objects.filter(kind="your_turn").exists()


def test_run_periodic_stops_cleanly_on_sigterm(tmp_path):
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "EMAIL_FILE_PATH": str(tmp_path / "mail"),
    }
    env.pop("CELERY_BROKER_URL", None)
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "-v0"], env=env, check=True, timeout=120)
    process = subprocess.Popen(
        [*manage, "run_periodic", "--interval", "1"],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert "every 1 s" in process.stdout.readline()
        process.send_signal(signal.SIGTERM)
        out, _ = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0
    assert "periodic jobs stopped" in out
