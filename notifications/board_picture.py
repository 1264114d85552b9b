"""A picture of the board for an email, drawn for its recipient when the email leaves.

The board page's own drawing (games.pages.drawing) is rendered to PNG by resvg (resvg-py: no
browser, no system libraries), with the page's stylesheet and only the font the project
installs (Debian's DejaVu Sans, scripts/install-system-deps): the same position gives the
same bytes on every machine. Pillow then cuts it to a small palette, so that even a late
six-player TransEuropa position stays under ``MAX_BYTES``.

Hidden information: the picture marks only the cities its recipient may see (their own
hand while a round runs; every hand once it is scored), as the board page does.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path

import resvg_py
from django.contrib.staticfiles import finders
from django.utils.translation import gettext
from PIL import Image

from games import rules
from games.pages.drawing import Highlight, board_svg, render_svg
from games.words.city_names import city_name
from helpers.text import and_list

# Debian's fonts-dejavu-core; the only font the renderer may use.
FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
WIDTH = 600  # CSS pixels: a phone's mail client scales it to its width
MAX_BYTES = 100_000
COLOURS = 48  # the palette: the board's few colours and their edges


class NoFont(RuntimeError):
    """The font the pictures are drawn with is missing (run scripts/install-system-deps)."""


@cache
def stylesheet() -> str:
    """The board page's styles, with the site's colour variables written out (the
    renderer knows no CSS variables)."""
    site = Path(finders.find("css/site.css")).read_text()
    board = Path(finders.find("games/board.css")).read_text()
    values = dict(re.findall(r"(--[\w-]+)\s*:\s*([^;]+);", site))
    return re.sub(r"var\((--[\w-]+)\)", lambda m: values.get(m[1], "#000"), board)


def picture(
    state: rules.GameState,
    viewer: int,
    *,
    highlight: Highlight | None = None,
    marked_cities: Iterable[str] | None = None,
    seat_names: Sequence[str] = (),
) -> bytes:
    """The PNG of ``state`` as ``viewer`` may see it: their cities marked (or
    ``marked_cities``, when every hand is public), ``highlight`` drawn out."""
    if not FONT.exists():
        raise NoFont(f"{FONT} is missing: run scripts/install-system-deps")
    svg = board_svg(
        state, viewer, highlight=highlight, marked_cities=marked_cities, seat_names=seat_names
    )
    drawn = resvg_py.svg_to_bytes(
        svg_string=str(render_svg(svg)),
        style_sheet=stylesheet(),
        width=WIDTH,
        background="#fffdf7",  # the board page's paper, behind the drawing
        skip_system_fonts=True,
        font_files=[str(FONT)],
        font_family="DejaVu Sans",
        sans_serif_family="DejaVu Sans",
    )
    image = Image.open(io.BytesIO(bytes(drawn))).convert("RGB")
    small = image.quantize(
        colors=COLOURS, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
    )
    out = io.BytesIO()
    # zlib's default level: written 7 times faster than at its highest (4 ms, not 29, for
    # the largest board) for 5 % more bytes, far under MAX_BYTES.
    small.save(out, format="PNG", compress_level=6)
    return out.getvalue()


def alt_text(
    state: rules.GameState, viewer: int, marked: Iterable[str], moved: Sequence[str]
) -> str:
    """Words for the picture, for readers who do not see it."""
    cities = ", ".join(sorted(city_name(name) for name in marked))
    text = gettext("The %(board)s board, round %(round)s.") % {
        "board": state.board.title,
        "round": state.round,
    }
    if cities:
        text += " " + gettext("Ringed: %(cities)s.") % {"cities": cities}
    if moved:
        text += " " + gettext("Highlighted: what %(players)s built since your last turn.") % {
            "players": and_list(moved)
        }
    return text
