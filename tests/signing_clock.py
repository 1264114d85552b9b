"""Moving the clock Django's signing reads, and only that clock: a token signed with the
time (``django.core.signing.dumps``) changes when a second passes, and a test that wants
to show whether a token does must not wait for the wall clock to cross one."""

import time
from types import SimpleNamespace

from django.core import signing


def move_signing_clock(monkeypatch, seconds: float) -> None:
    """From now on ``django.core.signing`` reads a clock ``seconds`` ahead of the wall
    clock; the rest of the process (servers, timeouts) keeps the real one."""
    real = time.time
    monkeypatch.setattr(signing, "time", SimpleNamespace(time=lambda: real() + seconds))
