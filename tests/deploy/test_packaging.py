"""The built wheel is all a server needs: every app, template, static file and board file,
and the modules setup.py compiles, compiled.

Runs once, in the PostgreSQL pass (it builds a wheel and a virtualenv, and needs Redis):
the wheel is installed into a fresh virtualenv (tests/deploy/conftest.py), away from the
checkout, where `check --deploy` passes with production settings and a page and its
static files are served.
"""

import zipfile
from pathlib import Path

import pytest

from tests.test_setup import compiled_sources

ROOT = Path(__file__).resolve().parents[2]
APPS = ("helpers", "accounts", "games", "notifications", "pbem")
# The site-wide templates, carried as data (pyproject.toml) where pbem.settings finds them.
SITE_TEMPLATES = "railmail-0.1.0.data/data/share/railmail/templates"

# With the smoke test, on one test worker: they share the wheel and its virtualenv.
pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("installed_wheel")]


def files_in_checkout() -> set[str]:
    """What the wheel must carry beside the code: templates, static files, board data."""
    wanted = set()
    for app in APPS:
        for folder in ("templates", "static"):
            for path in (ROOT / app / folder).rglob("*"):
                if path.is_file():
                    wanted.add(path.relative_to(ROOT).as_posix())
    wanted.update(p.relative_to(ROOT).as_posix() for p in (ROOT / "games/rules/boards").glob("*"))
    site = ROOT / "templates"
    wanted.update(f"{SITE_TEMPLATES}/{p.relative_to(site).as_posix()}" for p in site.rglob("*.*"))
    return wanted


def test_the_wheel_holds_every_app_template_static_and_board_file(installed):
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    assert files_in_checkout() <= names, sorted(files_in_checkout() - names)
    modules = {p.relative_to(ROOT).as_posix() for app in APPS for p in (ROOT / app).rglob("*.py")}
    assert modules <= names, sorted(modules - names)
    assert not any(name.startswith("tests/") for name in names)


def test_the_wheel_holds_each_compiled_module_compiled(installed):
    names = zipfile.ZipFile(installed.wheel).namelist()
    for source in compiled_sources():
        stem = source.removesuffix(".py")
        assert any(n.startswith(f"{stem}.") and n.endswith(".so") for n in names), source
    # mypyc's runtime, shared by them: one module at the top of the wheel.
    assert any(n.startswith("railmail__mypyc.") and n.endswith(".so") for n in names)


def test_installed_from_the_wheel_it_passes_check_deploy_and_serves_a_page(
    installed, static_root, tmp_path
):
    env = installed.production_env(
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        EMAIL_HOST="127.0.0.1",
        STATIC_ROOT=str(static_root),
    )
    checked, page = installed.python(env, "-c", CHECK_AND_REQUEST).split("\n", 1)
    assert "no issues" in checked
    assert page.split() == ["200", "200", "max-age=315360000,", "public,", "immutable"]


# Inside the installed virtualenv, in one process (each start of Django costs a second):
# `django-admin check --deploy`, then the sign-in page (one that needs no tables: the smoke
# test migrates and serves the rest), then the stylesheet it links to, by its hashed name,
# served by whitenoise with far-future cache headers.
CHECK_AND_REQUEST = """
import io, re
import django
django.setup()
from django.core.management import call_command
from django.test import Client
checked = io.StringIO()
call_command("check", deploy=True, fail_level="WARNING", stdout=checked, stderr=checked)
print(" ".join(checked.getvalue().split()))
client = Client(HTTP_X_FORWARDED_PROTO="https", HTTP_HOST="railmail.example.org")
page = client.get("/accounts/login/")
css = re.search(r'href="(/static/css/site\\.[0-9a-f]+\\.css)"', page.content.decode()).group(1)
static = client.get(css)
print(page.status_code, static.status_code, static["Cache-Control"])
"""
