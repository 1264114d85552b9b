"""The built wheel is all a server needs: every app, template, static file and board file.

Runs once, in the PostgreSQL pass (it builds a wheel and a virtualenv, and needs Redis):
the wheel is installed into a fresh virtualenv, away from the checkout, where `check
--deploy` passes with production settings and a page and its static files are served.
"""

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APPS = ("accounts", "games", "notifications", "pbem")

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(out), str(ROOT)],
        check=True,
        timeout=300,
        capture_output=True,
    )
    [built] = out.glob("railmail-*.whl")
    return built


def files_in_checkout() -> set[str]:
    """What the wheel must carry beside the code: templates, static files, board data."""
    wanted = set()
    for app in APPS:
        for folder in ("templates", "static"):
            for path in (ROOT / app / folder).rglob("*"):
                if path.is_file():
                    wanted.add(path.relative_to(ROOT).as_posix())
    wanted.update(p.relative_to(ROOT).as_posix() for p in (ROOT / "games/rules/boards").glob("*"))
    return wanted


def test_the_wheel_holds_every_app_template_static_and_board_file(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert files_in_checkout() <= names, sorted(files_in_checkout() - names)
    modules = {p.relative_to(ROOT).as_posix() for app in APPS for p in (ROOT / app).rglob("*.py")}
    assert modules <= names, sorted(modules - names)
    assert not any(name.startswith("tests/") for name in names)


def test_installed_from_the_wheel_it_passes_check_deploy_and_serves_a_page(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    subprocess.run(
        [python, "-m", "pip", "install", "--quiet", str(wheel)],
        check=True,
        timeout=600,
        capture_output=True,
    )
    redis = os.getenv("REDIS_TEST_URL", "redis://127.0.0.1:6379/15")
    env = {
        **{k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")},
        "DJANGO_SETTINGS_MODULE": "pbem.settings",
        "RAILMAIL_ENV": "production",
        "SECRET_KEY": "a-long-random-secret-Kq3vP9zR2mW8tY5uJ7nB4xC6dF1gH0sL",
        "SITE_URL": "https://railmail.example.org",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "CELERY_BROKER_URL": redis,
        "EMAIL_HOST": "127.0.0.1",
        "STATIC_ROOT": str(tmp_path / "static"),
    }

    def django(*args: str) -> str:
        done = subprocess.run(
            [python, "-m", "django", *args],
            env=env,
            cwd=tmp_path,  # away from the checkout: only the installed package is found
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    assert "no issues" in django("check", "--deploy", "--fail-level", "WARNING")
    django("migrate", "--no-input", "-v0")
    django("collectstatic", "--no-input", "-v0")
    page = subprocess.run(
        [python, "-c", REQUEST],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert page.returncode == 0, page.stdout + page.stderr
    assert page.stdout.split() == ["200", "200", "max-age=315360000,", "public,", "immutable"]


# Inside the installed virtualenv: the front page, then the stylesheet it links to, by
# its hashed name, served by whitenoise with far-future cache headers.
REQUEST = """
import re
import django
django.setup()
from django.test import Client
client = Client(HTTP_X_FORWARDED_PROTO="https", HTTP_HOST="railmail.example.org")
page = client.get("/")
css = re.search(r'href="(/static/css/site\\.[0-9a-f]+\\.css)"', page.content.decode()).group(1)
static = client.get(css)
print(page.status_code, static.status_code, static["Cache-Control"])
"""
