"""The benchmarks' PostgreSQL databases: each made afresh and migrated for its run."""

from __future__ import annotations

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
