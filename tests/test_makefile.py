"""`make run` turns replies by email on (issue 34): an inbound domain for the server,
the minute jobs and the built-in receiver, which runs beside the server."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_run_starts_the_receiver_with_an_inbound_domain(tmp_path):
    # A stand-in for the virtual environment's python: it notes what it was asked to run,
    # with the environment it got. The server waits (at most 10 s) until the two jobs
    # started beside it have noted theirs, then "stops", and make ends them.
    noted = tmp_path / "ran.txt"
    fake = tmp_path / "python"
    fake.write_text(
        "#!/bin/sh\n"
        f'echo "$* domain=$RAILMAIL_INBOUND_DOMAIN port=$RAILMAIL_RECEIVER_PORT" >> {noted}\n'
        'case "$*" in *runserver*)\n'
        "  for _ in $(seq 100); do\n"
        f'    [ "$(grep -c -e run_periodic -e receive_mail {noted})" -ge 2 ] && break\n'
        "    sleep 0.1\n"
        "  done;;\n"
        "esac\n"
    )
    fake.chmod(0o755)
    stamp = tmp_path / "installed"
    stamp.touch()
    ran = subprocess.run(
        ["make", "--no-print-directory", "run", f"BIN={tmp_path}", f"STAMP={stamp}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 0, ran.stderr
    said = noted.read_text().splitlines()
    commands = {line.split(" domain=")[0] for line in said}
    assert {"manage.py run_periodic", "manage.py receive_mail"} <= commands
    assert "manage.py runserver 127.0.0.1:8000" in commands
    assert all(line.endswith("domain=reply.localhost port=8025") for line in said)
