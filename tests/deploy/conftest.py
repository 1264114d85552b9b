"""Railmail as an operator installs it: the built wheel in a fresh virtualenv."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Installed:
    """The wheel, and a virtualenv that has it installed with its production extra."""

    wheel: Path
    venv: Path
    home: Path  # a folder away from the checkout, to run commands in

    @property
    def bin(self) -> Path:
        return self.venv / "bin"

    def production_env(self, **overrides: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}
        env.update(
            DJANGO_SETTINGS_MODULE="pbem.settings",
            RAILMAIL_ENV="production",
            SECRET_KEY="a-long-random-secret-Kq3vP9zR2mW8tY5uJ7nB4xC6dF1gH0sL",
            SITE_URL="https://railmail.example.org",
            CELERY_BROKER_URL=os.getenv("REDIS_TEST_URL", "redis://127.0.0.1:6379/15"),
        )
        env.update(overrides)
        return env

    def python(self, env: dict[str, str], *args: str, timeout: float = 300) -> str:
        done = subprocess.run(
            [self.bin / "python", *args],
            env=env,
            cwd=self.home,  # away from the checkout: only the installed package is found
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def django(self, env: dict[str, str], *args: str) -> str:
        return self.python(env, "-m", "django", *args)


@pytest.fixture(scope="session")
def installed(tmp_path_factory) -> Installed:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(out), str(ROOT)],
        check=True,
        timeout=300,
        capture_output=True,
    )
    [wheel] = out.glob("railmail-*.whl")
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    subprocess.run(
        [venv / "bin" / "python", "-m", "pip", "install", "--quiet", f"{wheel}[production]"],
        check=True,
        timeout=600,
        capture_output=True,
    )
    return Installed(wheel=wheel, venv=venv, home=tmp_path_factory.mktemp("home"))
