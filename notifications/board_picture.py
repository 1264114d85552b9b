"""A picture of the board for an email, drawn for its recipient when the email leaves.

The board page's drawing goes through resvg with one installed font, so a position gives
the same bytes everywhere, and a small palette keeps it under ``MAX_BYTES``. A phone shows
it too narrow for the whole board's names, so the reader's part comes large on top and
the whole board small below. Only cities the recipient may see are marked.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import resvg_py
from django.contrib.staticfiles import finders
from django.utils.translation import gettext
from PIL import Image, ImageDraw

from games import rules
from games.pages.drawing import Highlight, board_svg, layout, render_svg
from games.words.city_names import city_name
from helpers.text import and_list

# Debian's fonts-dejavu-core; the only font the renderer may use.
FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
WIDTH = 600  # CSS pixels: a phone's mail client scales it to its width (390 on many)
MAX_BYTES = 100_000
COLOURS = 48  # the palette: the board's few colours and their edges


class NoFont(RuntimeError):
    """The font the pictures are drawn with is missing (run scripts/install-system-deps)."""


@cache
def stylesheet() -> str:
    """The board page's styles with the colour variables written out (resvg knows none)."""
    site = Path(finders.find("css/site.css")).read_text()
    board = Path(finders.find("games/board.css")).read_text()
    values = dict(re.findall(r"(--[\w-]+)\s*:\s*([^;]+);", site))
    return re.sub(r"var\((--[\w-]+)\)", lambda m: values.get(m[1], "#000"), board)


# In drawing units: city names stay over 10 pixels high on a 390-pixel phone.
DETAIL_WIDTH = 330
DETAIL_HEIGHT = 230
OVERVIEW_WIDTH = 300  # the whole board, small, under the reader's part
GAP = 8
PAPER = "#fffdf7"  # the board page's paper, behind the drawing


@dataclass(frozen=True)
class Region:
    """A part of the drawing, in its units."""

    x: float
    y: float
    width: float
    height: float


def detail_region(state: rules.GameState, viewer: int) -> Region:
    """The reader's part of the board, centred on their network or cities: only the
    reader's own facts choose it, so it gives away no other hand."""
    board = state.board
    pos, width, height = layout(board)
    points = sorted(rules.network(state, viewer))
    if not points and state.hands:
        points = [board.city_point(name) for name in state.hands[viewer]]
    if points:
        cx = sum(pos[i][0] for i in points) / len(points)
        cy = sum(pos[i][1] for i in points) / len(points)
    else:
        cx, cy = width / 2, height / 2
    x = min(max(cx - DETAIL_WIDTH / 2, 0), width - DETAIL_WIDTH)
    y = min(max(cy - DETAIL_HEIGHT / 2, 0), height - DETAIL_HEIGHT)
    return Region(round(x, 1), round(y, 1), DETAIL_WIDTH, DETAIL_HEIGHT)


def _render(markup: str, width: int) -> Image.Image:
    drawn = resvg_py.svg_to_bytes(
        svg_string=markup,
        style_sheet=stylesheet(),
        width=width,
        background=PAPER,
        skip_system_fonts=True,
        font_files=[str(FONT)],
        font_family="DejaVu Sans",
        sans_serif_family="DejaVu Sans",
    )
    return Image.open(io.BytesIO(bytes(drawn))).convert("RGB")


def picture(
    state: rules.GameState,
    viewer: int,
    *,
    highlight: Highlight | None = None,
    marked_cities: Iterable[str] | None = None,
    seat_names: Sequence[str] = (),
) -> bytes:
    """The PNG of ``state`` as ``viewer`` may see it, ``highlight`` drawn out."""
    if not FONT.exists():
        raise NoFont(f"{FONT} is missing: run scripts/install-system-deps")
    svg = board_svg(
        state, viewer, highlight=highlight, marked_cities=marked_cities, seat_names=seat_names
    )
    markup = str(render_svg(svg))
    whole = f'viewBox="0 0 {svg["width"]} {svg["height"]}"'
    region = detail_region(state, viewer)
    part = f'viewBox="{region.x} {region.y} {region.width} {region.height}"'
    detail = _render(markup.replace(whole, part, 1), WIDTH)
    overview = _render(markup, OVERVIEW_WIDTH)
    canvas = Image.new("RGB", (WIDTH, detail.height + GAP + overview.height), PAPER)
    canvas.paste(detail, (0, 0))
    left, top = (WIDTH - OVERVIEW_WIDTH) // 2, detail.height + GAP
    canvas.paste(overview, (left, top))
    draw = ImageDraw.Draw(canvas)
    draw.rectangle((0, 0, WIDTH - 1, detail.height - 1), outline="#b9b2a3")
    scale = OVERVIEW_WIDTH / svg["width"]
    frame = (
        left + region.x * scale,
        top + region.y * scale,
        left + (region.x + region.width) * scale,
        top + (region.y + region.height) * scale,
    )
    draw.rectangle(frame, outline="#1d232b", width=2)
    small = canvas.quantize(
        colors=COLOURS, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
    )
    out = io.BytesIO()
    # zlib's default level: far faster than its highest, for a few more bytes.
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
