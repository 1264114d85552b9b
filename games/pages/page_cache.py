"""Parts of pages rendered once and cached, with holes filled in per request.

The cache key digests every input and the rendering code (``page_stamp``), so a part is
never served for other inputs or by another release. Per-request text (the CSRF token,
inserts) and a board's static layers are holes, marked with a fresh nonce so nothing a
player typed can pose as one.
"""

from __future__ import annotations

import hashlib
import logging
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import django
from django.conf import settings
from django.contrib.messages import get_messages
from django.core.cache import cache as django_cache
from django.http import HttpRequest
from django.middleware.csrf import get_token
from django.utils import translation
from django.utils.safestring import SafeString, mark_safe

from games.derived.snapshots import source_digest
from games.pages.drawing import static_layer

log = logging.getLogger(__name__)

# Nothing depends on a fragment being kept.
TIMEOUT = 60 * 60 * 24 * 3


SOURCE_SUFFIXES = (".py", ".html", ".js", ".css", ".json")


PROJECT_PACKAGES = ("helpers", "accounts", "games", "notifications", "pbem")


def page_sources() -> list[Path]:
    """Every folder a page's code, templates and static files come from."""
    base = Path(settings.BASE_DIR)
    return [base / name for name in PROJECT_PACKAGES] + [Path(settings.SITE_TEMPLATES)]


def sources_stamp(folders: list[Path]) -> str:
    """A digest of the page sources in ``folders``: it changes when any of them does."""
    digests = ":".join(source_digest(folder, SOURCE_SUFFIXES) for folder in folders)
    return hashlib.sha256(digests.encode()).hexdigest()[:16]


@cache
def page_stamp() -> str:
    """A stamp of what renders the pages, so a new release never serves an older one's."""
    code = sources_stamp(page_sources())
    # A corrected translation is never hidden behind an old page.
    words = "".join(source_digest(Path(path), (".mo",)) for path in settings.LOCALE_PATHS)
    return f"{code}:{words}:{django.__version__}:{settings.STATIC_URL}:{settings.STORAGES}"


class Holes:
    """The markers of one rendering's holes."""

    def __init__(self) -> None:
        self.nonce = secrets.token_hex(12)
        self.pattern = re.compile(f"\0{self.nonce}:([^\0]*)\0")

    def mark(self, hole: str) -> str:
        return f"\0{self.nonce}:{hole}\0"

    @property
    def csrf_token(self) -> str:
        return self.mark("csrf")

    def layer(self, board: str, name: str) -> str:
        return self.mark(f"layer:{board}:{name}")

    def insert(self, name: str) -> SafeString:
        """The hole of the insert ``name``, given to ``Fragment.fill`` for each request."""
        return mark_safe(self.mark(f"insert:{name}"))

    def split(self, text: str) -> tuple[str, ...]:
        """Text and hole names, alternately (text first and last)."""
        return tuple(self.pattern.split(text))


@dataclass(frozen=True)
class Fragment:
    parts: dict[str, tuple[str, ...]]

    def fill(
        self, name: str, request: HttpRequest, csrf_token: str | None = None, **inserts: str
    ) -> SafeString:
        """The part ``name`` with its holes filled in for ``request``."""
        out = _filled(self.parts[name], request, csrf_token, inserts, static_layer)
        # Rendered by the template engine, which escaped it; the holes are ours.
        return mark_safe("".join(out))


@cache
def _encoded_layer(board: str, name: str) -> bytes:
    return static_layer(board, name).encode()


def _filled(
    parts: tuple, request: HttpRequest, csrf_token: str | None, inserts: dict, layer: Callable
) -> list:
    """``parts`` with each hole (every other part) filled in for ``request``."""
    out = list(parts)
    for n in range(1, len(parts), 2):
        hole = parts[n]
        if hole == "csrf":
            # Once: each get_token() masks the token anew.
            csrf_token = csrf_token or get_token(request)
            out[n] = str(csrf_token)
        elif hole.startswith("insert:"):
            out[n] = inserts[hole.removeprefix("insert:")]
        else:
            kind, board, name = hole.split(":")
            if kind != "layer":
                raise ValueError(f"unknown hole {hole!r}")
            out[n] = layer(board, name)
    return out


def cached(kind: str, inputs: tuple, render: Callable[[Holes], dict[str, str]]) -> Fragment:
    """The fragment of ``kind`` for ``inputs``, which must hold everything ``render`` reads."""
    return Fragment(
        _cached_parts(
            kind,
            inputs,
            lambda holes: {name: holes.split(text) for name, text in render(holes).items()},
        )
    )


def _cached_parts(kind: str, inputs: tuple, make: Callable[[Holes], dict]) -> dict:
    material = repr((page_stamp(), translation.get_language(), kind, inputs)).encode()
    key = f"railmail:fragment:{kind}:{hashlib.sha256(material).hexdigest()}"
    try:
        parts = django_cache.get(key)
    except Exception:
        log.warning("could not read a cached page fragment", exc_info=True)
        parts = None
    if parts is None:
        parts = make(Holes())
        try:
            django_cache.set(key, parts, timeout=TIMEOUT)
        except Exception:
            log.warning("could not cache a page fragment", exc_info=True)
    return parts


def page(
    request: HttpRequest,
    kind: str,
    inputs: tuple,
    render: Callable[[Holes], str],
    *,
    fresh: bool = False,
    csrf_token: str | None = None,
    **inserts: str,
) -> bytes:
    """A whole page of ``kind`` as UTF-8, cached for ``inputs``, the path and the account
    (the site's frame shows them); afresh when ``fresh`` or messages must show once.

    Kept encoded, so a request joins bytes rather than encoding a large page."""

    def encoded(holes: Holes) -> dict[str, tuple]:
        parts = holes.split(render(holes))
        return {"page": tuple(p.encode() if n % 2 == 0 else p for n, p in enumerate(parts))}

    if fresh or get_messages(request):
        parts = encoded(Holes())
    else:
        user = request.user
        account = (user.pk, user.get_short_name()) if user.is_authenticated else None
        key = (*inputs, request.get_full_path(), account)
        parts = _cached_parts(kind, key, encoded)
    out = _filled(parts["page"], request, csrf_token, inserts, _encoded_layer)
    return b"".join(part if isinstance(part, bytes) else part.encode() for part in out)
