"""Settings are read once, at start-up: each case starts a fresh Python process."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SHOW = """
import json
from django.conf import settings
print(json.dumps({
    "DEBUG": settings.DEBUG,
    "ENGINE": settings.DATABASES["default"]["ENGINE"],
    "DB_NAME": str(settings.DATABASES["default"]["NAME"]),
    "EAGER": settings.CELERY_TASK_ALWAYS_EAGER,
    "BROKER": settings.CELERY_BROKER_URL,
    "EMAIL_BACKEND": settings.EMAIL_BACKEND,
    "ANYMAIL": settings.ANYMAIL,
    "ALLOWED_HOSTS": settings.ALLOWED_HOSTS,
    "SITE_URL": settings.SITE_URL,
    "SECURE_COOKIES": getattr(settings, "SESSION_COOKIE_SECURE", False),
    "HSTS": getattr(settings, "SECURE_HSTS_SECONDS", 0),
}))
"""

PRODUCTION = {
    "RAILMAIL_ENV": "production",
    "SECRET_KEY": "x" * 50,
    "SITE_URL": "https://railmail.example.org",
    "DATABASE_URL": "postgres://railmail:pw@db.internal:5432/railmail",
    "CELERY_BROKER_URL": "redis://cache.internal:6379/0",
    "ANYMAIL_ESP": "mailgun",
    "ANYMAIL_MAILGUN_API_KEY": "key-123",
    "ANYMAIL_WEBHOOK_SECRET": "railmail:s3cret",
    "ANYMAIL_MAILGUN_WEBHOOK_SIGNING_KEY": "signing-key-123",
}


def load(env: dict[str, str], show: str = SHOW) -> subprocess.CompletedProcess:
    # Only what the case sets: nothing from the developer's or CI's own environment.
    base = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}
    return subprocess.run(
        [sys.executable, "-c", show],
        env={**base, "DJANGO_SETTINGS_MODULE": "pbem.settings", **env},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def settings_for(env: dict[str, str]) -> dict:
    result = load(env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_with_nothing_set_it_runs_locally_without_other_servers():
    shown = settings_for({})
    assert shown["DEBUG"] is True
    assert shown["ENGINE"] == "django.db.backends.sqlite3"
    assert shown["DB_NAME"].endswith("db.sqlite3")
    assert shown["EAGER"] is True
    assert shown["EMAIL_BACKEND"] == "django.core.mail.backends.filebased.EmailBackend"
    assert shown["SITE_URL"] == "http://127.0.0.1:8000"


def test_production_reads_everything_from_the_environment():
    shown = settings_for(PRODUCTION)
    assert shown["DEBUG"] is False
    assert shown["ENGINE"] == "helpers.postgresql"
    assert shown["DB_NAME"] == "railmail"
    assert shown["EAGER"] is False
    assert shown["BROKER"] == "redis://cache.internal:6379/0"
    assert shown["EMAIL_BACKEND"] == "anymail.backends.mailgun.EmailBackend"
    assert shown["ANYMAIL"] == {
        "MAILGUN_API_KEY": "key-123",
        "WEBHOOK_SECRET": "railmail:s3cret",
        # Each HTTP call to the provider gives up as an SMTP step does (EMAIL_TIMEOUT).
        "REQUESTS_TIMEOUT": 10.0,
        "MAILGUN_WEBHOOK_SIGNING_KEY": "signing-key-123",
    }
    assert shown["ALLOWED_HOSTS"] == ["railmail.example.org"]
    assert shown["SECURE_COOKIES"] is True
    assert shown["HSTS"] > 0


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        ({"SECRET_KEY": None}, "SECRET_KEY"),
        ({"SECRET_KEY": ""}, "SECRET_KEY"),
        ({"SECRET_KEY": "railmail-local-development-key-not-for-production"}, "SECRET_KEY"),
        ({"SITE_URL": None}, "SITE_URL"),
        ({"ANYMAIL_ESP": None}, "ANYMAIL_ESP"),
        ({"ANYMAIL_WEBHOOK_SECRET": None}, "ANYMAIL_WEBHOOK_SECRET"),
        ({"ANYMAIL_MAILGUN_WEBHOOK_SIGNING_KEY": None}, "ANYMAIL_MAILGUN_WEBHOOK_SIGNING_KEY"),
        ({"CELERY_BROKER_URL": None}, "RATELIMIT_REDIS_URL"),
        ({"RAILMAIL_ENV": "prod"}, "RAILMAIL_ENV"),
    ],
)
def test_production_refuses_to_start_without_what_it_cannot_guess(change, complaint):
    env = {**PRODUCTION, **change}
    result = load({k: v for k, v in env.items() if v is not None})
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert complaint in result.stderr


def test_smtp_gives_up_on_a_silent_server_by_default():
    check = subprocess.run(
        [sys.executable, "-c", "from django.conf import settings as s; "
         "print(s.EMAIL_TIMEOUT, s.ANYMAIL['REQUESTS_TIMEOUT'])"],
        env={"PATH": os.environ["PATH"], "DJANGO_SETTINGS_MODULE": "pbem.settings"},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )  # fmt: skip
    # Connecting and each SMTP step (and each call to a provider's API): at most 10 s.
    assert check.stdout.split() == ["10", "10.0"], check.stderr


def test_production_sends_by_plain_smtp_without_a_provider():
    env = {k: v for k, v in PRODUCTION.items() if not k.startswith("ANYMAIL_")}
    smtp = {
        "EMAIL_HOST": "smtp.example.org",
        "EMAIL_PORT": "465",
        "EMAIL_HOST_USER": "railmail",
        "EMAIL_HOST_PASSWORD": "pw",
        "EMAIL_USE_SSL": "true",
        "EMAIL_TIMEOUT": "12",
    }
    show = (
        "import json; from django.conf import settings as s; print(json.dumps([s.EMAIL_BACKEND,"
        " s.EMAIL_HOST, s.EMAIL_PORT, s.EMAIL_HOST_USER, s.EMAIL_USE_SSL, s.EMAIL_USE_TLS,"
        " s.EMAIL_TIMEOUT]))"
    )
    result = load({**env, **smtp}, show)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [
        "notifications.smtp.EmailBackend",
        "smtp.example.org",
        465,
        "railmail",
        True,
        False,
        12,
    ]


def test_production_without_any_way_to_send_mail_refuses_to_start():
    env = {k: v for k, v in PRODUCTION.items() if not k.startswith("ANYMAIL_")}
    result = load(env)
    assert result.returncode != 0
    assert "EMAIL_HOST" in result.stderr and "ANYMAIL_ESP" in result.stderr


def test_tls_and_ssl_together_are_refused():
    result = load({"EMAIL_USE_TLS": "true", "EMAIL_USE_SSL": "true"})
    assert result.returncode != 0 and "not both" in result.stderr


def test_check_deploy_is_clean_in_production():
    env = {
        **{k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")},
        "DJANGO_SETTINGS_MODULE": "pbem.settings",
        **PRODUCTION,
        "SECRET_KEY": "a-long-random-secret-Kq3vP9zR2mW8tY5uJ7nB4xC6dF1gH0sL",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


DATABASE_OPTIONS = """
import json
from django.conf import settings
print(json.dumps(settings.DATABASES["default"].get("OPTIONS", {})))
"""


@pytest.mark.parametrize(
    ("threshold", "options"),
    [
        ({}, {"server_side_binding": True, "prepare_threshold": 5}),
        ({"DB_PREPARE_THRESHOLD": "2"}, {"server_side_binding": True, "prepare_threshold": 2}),
        ({"DB_PREPARE_THRESHOLD": "off"}, {}),
    ],
)
def test_postgresql_prepares_statements_run_again_and_again(threshold, options):
    result = load({**PRODUCTION, **threshold}, DATABASE_OPTIONS)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == options


def test_sqlite_has_no_prepared_statements_to_set():
    result = load({"DB_PREPARE_THRESHOLD": "2"}, DATABASE_OPTIONS)
    assert "prepare_threshold" not in json.loads(result.stdout)
