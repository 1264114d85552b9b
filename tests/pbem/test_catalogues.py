"""The translation catalogues (issue 19): complete, checked by GNU gettext, and compiled.

The German catalogue must hold every string the code marks, translated and none fuzzy:
the test extracts the strings afresh (Django's makemessages, GNU xgettext) from a copy of
the project and merges them into a copy of the committed catalogue, so a string marked
since the catalogue was last updated shows up as untranslated. The committed .mo files
must say what the .po files say (`make catalogues`).
"""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "pbem" / "locale"
# Every folder with code or templates whose strings are marked for translation.
SOURCES = ("helpers", "accounts", "games", "notifications", "pbem", "templates")
CATALOGUES = sorted(LOCALE.glob("*/LC_MESSAGES/*.po"))

pytestmark = pytest.mark.skipif(
    shutil.which("msgfmt") is None or shutil.which("xgettext") is None,
    reason="GNU gettext is not installed: scripts/install-system-deps",
)


def statistics(po: Path) -> str:
    """What `msgfmt --check --statistics` says of ``po`` (it fails on a broken entry)."""
    done = subprocess.run(
        ["msgfmt", "--check", "--statistics", "-o", "/dev/null", str(po)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return done.stderr.strip()


def test_every_language_but_english_has_a_catalogue():
    languages = {path.parts[-3] for path in CATALOGUES}
    assert languages == {code for code, _ in settings.LANGUAGES if code != "en"}


@pytest.mark.parametrize("po", CATALOGUES, ids=lambda po: "/".join(po.parts[-3:]))
def test_committed_catalogue_is_complete(po):
    said = statistics(po)
    assert re.fullmatch(r"\d+ translated messages?\.", said), said


def test_catalogue_holds_every_marked_string(tmp_path):
    """Extract afresh into a copy: nothing marked may be missing from the catalogue."""
    for folder in SOURCES:
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("*.pyc"))
    shutil.copy(ROOT / "manage.py", tmp_path)
    done = subprocess.run(
        [sys.executable, "manage.py", "makemessages", "--locale=de", "--no-obsolete"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "pbem.settings"},
    )
    assert done.returncode == 0, done.stderr
    fresh = tmp_path / "pbem" / "locale" / "de" / "LC_MESSAGES" / "django.po"
    said = statistics(fresh)
    assert re.fullmatch(r"\d+ translated messages?\.", said), (
        f"{said}: run `make messages` and translate the new strings"
    )


@pytest.mark.parametrize("po", CATALOGUES, ids=lambda po: "/".join(po.parts[-3:]))
def test_compiled_catalogue_matches_its_source(po, tmp_path):
    fresh = tmp_path / "fresh.mo"
    subprocess.run(["msgfmt", "-o", str(fresh), str(po)], check=True)
    assert unpacked(po.with_suffix(".mo")) == unpacked(fresh), "run `make catalogues`"


def unpacked(mo: Path) -> str:
    """A compiled catalogue as sorted text (msgunfmt), to compare what it says."""
    return subprocess.run(["msgunfmt", str(mo)], capture_output=True, text=True, check=True).stdout
