"""Railmail as an operator installs it: the built wheel in a fresh virtualenv.

The wheel is built by setuptools' PEP 517 backend, in a build environment of its own that
holds what pyproject.toml's [build-system] requires (as pip's build isolation would), and
with its build directories outside the checkout (a stale build/lib there would lend the
wheel files the checkout no longer has).

The fresh virtualenv gets the wheel installed by pip, and beside it exactly the
distributions the wheel's Requires-Dist and its `production` extra pull in, followed
transitively, each at a version its requirement accepts: their files are linked from the
project's own environment rather than downloaded and installed again (that took most of
the 26 s this fixture used to cost). A dependency the wheel forgets to declare is missing
there, as it would be on a server, and the tests that run Railmail from this virtualenv
fail on importing it.
"""

from __future__ import annotations

import email.parser
import os
import subprocess
import sys
import tomllib
import zipfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
EXTRAS = {"production"}


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


def build_wheel(out: Path, work: Path) -> Path:
    """The wheel of the checkout, built by its declared backend in one process."""
    build_system = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]
    backend = work / "backend"
    run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-compile"]
        + ["--target", backend, *build_system["requires"]]
    )
    # Build and egg-info directories in `work`, read by setuptools' distutils.
    config = work / "setup.cfg"
    config.write_text(f"[build]\nbuild_base = {work / 'build'}\n[egg_info]\negg_base = {work}\n")
    module, _, obj = build_system["build-backend"].partition(":")
    hook = f"import {module} as b; b = {'b.' + obj if obj else 'b'}; b.build_wheel({str(out)!r})"
    run(
        [sys.executable, "-c", hook],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(backend), "DIST_EXTRA_CONFIG": str(config)},
    )
    [wheel] = out.glob("railmail-*.whl")
    return wheel


def requirements_of(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        [name] = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        headers = email.parser.Parser().parsestr(archive.read(name).decode())
    return headers.get_all("Requires-Dist") or []


def dependencies(requires: list[str], extras: set[str]) -> list[metadata.Distribution]:
    """The installed distributions ``requires`` (with ``extras``) pulls in, transitively;
    fails if one is missing or at a version its requirement does not accept."""
    found: dict[str, metadata.Distribution] = {}
    seen: set[tuple[str, frozenset[str]]] = set()
    todo = [(text, frozenset(extras)) for text in requires]
    while todo:  # bounded: each (distribution, extras) is followed once
        text, wanted = todo.pop()
        requirement = Requirement(text)
        marker = requirement.marker
        if marker and not any(marker.evaluate({"extra": e}) for e in wanted | {""}):
            continue
        dist = metadata.distribution(requirement.name)
        assert requirement.specifier.contains(dist.version, prereleases=True), (text, dist.version)
        key = (canonicalize_name(requirement.name), frozenset(requirement.extras))
        if key in seen:
            continue
        seen.add(key)
        found[key[0]] = dist
        todo.extend((t, key[1]) for t in dist.requires or [])
    return list(found.values())


def link_into(site: Path, dists: list[metadata.Distribution]) -> None:
    """Each distribution's files (its RECORD), linked into the ``site`` directory: by their
    top-level folder or module, or file by file where distributions share a folder."""
    owners: dict[str, list[metadata.Distribution]] = {}
    for dist in dists:
        assert dist.files is not None, f"{dist.name} has no RECORD"
        # Not its scripts in bin/ (../../../bin): the tests run them with `python -m`.
        for top in {file.parts[0] for file in dist.files if file.parts[0] != ".."}:
            owners.setdefault(top, []).append(dist)
    for top, [first, *others] in owners.items():
        if not others:
            (site / top).symlink_to(first.locate_file(top))
            continue
        for dist in (first, *others):
            for file in (f for f in dist.files if f.parts[0] == top):
                (site / file).parent.mkdir(parents=True, exist_ok=True)
                (site / file).symlink_to(dist.locate_file(file))


def run(command: list, **kwargs) -> None:
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, **kwargs)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="session")
def installed(tmp_path_factory) -> Installed:
    wheel = build_wheel(tmp_path_factory.mktemp("wheel"), tmp_path_factory.mktemp("build"))
    venv = tmp_path_factory.mktemp("venv")
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    link_into(
        venv / "lib" / version / "site-packages", dependencies(requirements_of(wheel), EXTRAS)
    )
    run(
        [sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "install", "--quiet"]
        + ["--no-deps", "--no-index", str(wheel)]
    )
    return Installed(wheel=wheel, venv=venv, home=tmp_path_factory.mktemp("home"))


@pytest.fixture(scope="session")
def static_root(installed, tmp_path_factory) -> Path:
    """The static files, collected once from the installed wheel with production settings
    (hashed names, compressed copies), for the tests that serve them."""
    root = tmp_path_factory.mktemp("static")
    env = installed.production_env(
        DATABASE_URL=f"sqlite:///{root / 'unused.sqlite3'}",
        EMAIL_HOST="127.0.0.1",
        STATIC_ROOT=str(root),
    )
    installed.django(env, "collectstatic", "--no-input", "-v0")
    return root
