"""What every benchmark runs the service with: production settings from a clean
environment, and a PostgreSQL database made afresh and migrated for its run."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def fresh_database(database_url: str, env: dict[str, str]) -> None:
    """Drop and create the database of ``database_url``, then migrate it with ``env``."""
    name = urllib.parse.urlsplit(database_url).path.lstrip("/")
    admin = database_url.rsplit("/", 1)[0] + "/postgres"
    for sql in (f"DROP DATABASE IF EXISTS {name}", f"CREATE DATABASE {name}"):
        subprocess.run(["psql", admin, "-qc", sql], check=True, capture_output=True)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True, timeout=300
    )


def production_env(database_url: str, **settings: str) -> dict[str, str]:
    """The environment of the service under measure: production settings (DEBUG off) on
    ``database_url``, none of the caller's own Django, Railmail, mail or Celery settings,
    and ``settings`` on top."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "RAILMAIL_", "ANYMAIL_", "EMAIL_", "CELERY_"))
    }
    env.update(
        RAILMAIL_ENV="production",
        SECRET_KEY="bench-" + "x" * 60,
        SITE_URL="https://bench.railmail.test",
        DATABASE_URL=database_url,
        EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend",
        DJANGO_SETTINGS_MODULE="pbem.settings",
        PYTHONPATH=str(ROOT),
        LOG_LEVEL="WARNING",
    )
    env.update(settings)
    return env
