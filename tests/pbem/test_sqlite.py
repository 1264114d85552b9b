"""The embedded default (SQLite) takes concurrent requests without "database is locked"
(issue 13): real threads, each with its own connection, on a real database file."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_concurrent_sign_ins_on_sqlite_never_answer_database_is_locked(tmp_path):
    base = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}
    env = {
        **base,
        "DJANGO_SETTINGS_MODULE": "pbem.settings",
        # The checkout under test, whether or not (and wherever) the project is installed.
        "PYTHONPATH": str(ROOT),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "EMAIL_FILE_PATH": str(tmp_path / "mail"),
        # Its own rate-limit counts: another run's (within the hour) must not count here.
        "RAILMAIL_VAR_DIR": str(tmp_path / "var"),
        "DEBUG": "false",
    }
    result = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "pbem" / "sqlite_concurrency.py"), "8", "12"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert "database is locked" not in result.stderr
    assert result.returncode == 0, result.stderr[-3000:]
    statuses = json.loads(result.stdout.strip().splitlines()[-1])
    assert len(statuses) == 8 * 12
    assert set(statuses) == {302}, result.stderr[-3000:]
