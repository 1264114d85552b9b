"""Debian's SpamAssassin as the tests use it: one spamd on a loopback port, local rules
only (no network tests, no Bayes), asked through spamc."""

from __future__ import annotations

import re
import subprocess
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.faults import closed_port

SPAMD = "/usr/sbin/spamd"
SPAMC = "/usr/bin/spamc"
LOCAL_CF = """\
use_bayes 0
bayes_auto_learn 0
skip_rbl_checks 1
"""


@dataclass(frozen=True)
class Verdict:
    score: float
    rules: dict[str, float]

    def __str__(self) -> str:
        return f"{self.score} ({', '.join(f'{k} {v}' for k, v in self.rules.items())})"


class SpamAssassin:
    def __init__(self, port: int):
        self.port = port

    def check(self, raw: bytes) -> Verdict:
        report = subprocess.run(
            [SPAMC, "-d", "127.0.0.1", "-p", str(self.port), "-R"],
            input=raw,
            capture_output=True,
            timeout=60,
        ).stdout.decode()
        score = float(re.search(r"^\s*(-?[\d.]+)/", report).group(1))
        rules = {
            name: float(points)
            for points, name in re.findall(r"^\s*(-?\d+\.\d+)\s+([A-Z0-9_]+)\s", report, re.M)
        }
        return Verdict(score, rules)


@contextmanager
def spamd():
    """A spamd of its own, started once, stopped at the end."""
    if not Path(SPAMD).exists():
        raise RuntimeError(f"{SPAMD} is missing: run scripts/install-system-deps")
    port = closed_port()
    with tempfile.TemporaryDirectory() as home:
        site = Path(home) / "site"
        site.mkdir()
        # Debian's site configuration (its .pre files load the plugins), with our local
        # settings instead of the machine's.
        for pre in Path("/etc/spamassassin").glob("*.pre"):
            (site / pre.name).write_text(pre.read_text())
        (site / "local.cf").write_text(LOCAL_CF)
        # spamd reads them as "nobody" once it has dropped root.
        for path in (Path(home), site, *site.iterdir()):
            path.chmod(0o755 if path.is_dir() else 0o644)
        process = subprocess.Popen(
            [
                SPAMD,
                "--local",
                f"--listen=127.0.0.1:{port}",
                "--max-children=1",
                "--min-children=1",
                "--nouser-config",
                f"--siteconfigpath={site}",
                f"--helper-home-dir={home}",
                "--syslog=stderr",
                "-u",
                "nobody",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            for _ in range(120):  # bounded: about a minute
                ping = subprocess.run(
                    [SPAMC, "-d", "127.0.0.1", "-p", str(port), "-K"], capture_output=True
                )
                if ping.returncode == 0 and ping.stdout.startswith(b"SPAMD/"):
                    break
                if process.poll() is not None:
                    raise RuntimeError("spamd stopped while starting")
                time.sleep(0.5)
            else:
                raise RuntimeError("spamd did not answer within a minute")
            yield SpamAssassin(port)
        finally:
            process.terminate()
            process.wait(timeout=30)
