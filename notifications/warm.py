"""What a worker loads once when it starts, rather than while it sends its first email."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.template.loader import get_template
from django.urls import get_resolver
from django.utils import translation
from PIL import Image

from notifications import board_picture

TEMPLATES = Path(__file__).with_name("templates") / "emails"


def warm() -> None:
    """Load what every email needs the first time a process sends one: the URL patterns
    (its links), the emails' templates compiled, the message catalogues, Pillow's image
    formats, and the board picture's stylesheet, font and boards' layers. A started
    worker took about 0.2 s of CPU over its first emails for these (bench_outbox)."""
    get_resolver().reverse_dict  # noqa: B018  (reading it reads the URL patterns)
    for language, _ in settings.LANGUAGES:
        with translation.override(language):
            pass
    for template in sorted(TEMPLATES.iterdir()):
        get_template(f"emails/{template.name}")
    for base in ("base.txt", "base.html"):
        get_template(f"emails/{base}")
    Image.preinit()
    board_picture.warm()
