"""The list of database tests that run on both backends (tests/conftest.py) names test
modules that exist: a renamed module must not silently leave the PostgreSQL pass."""

from pathlib import Path

from tests.conftest import BOTH_DATABASES

ROOT = Path(__file__).resolve().parents[1]


def test_every_module_run_on_both_databases_exists():
    assert [path for path in BOTH_DATABASES if not (ROOT / path).is_file()] == []
