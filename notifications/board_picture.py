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
from functools import cache, lru_cache
from pathlib import Path

import resvg_py
from django.contrib.staticfiles import finders
from django.utils.translation import gettext
from PIL import Image, ImageDraw

from games import rules
from games.pages.drawing import Highlight, board_svg, layout, render_svg, static_layer
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


def _rules(css: str) -> list[tuple[str, str]]:
    """A stylesheet's top-level rules as ``(selector or at-rule prelude, body)``."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    rules_found, depth, start, head = [], 0, 0, ""
    for i, char in enumerate(css):
        if char == "{":
            if depth == 0:
                head, start = css[start:i].strip(), i + 1
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                rules_found.append((head, css[start:i]))
                start = i + 1
    return rules_found


def _may_match(selector: str, classes: frozenset[str]) -> bool:
    """Whether some alternative of ``selector`` names only classes the drawing has: a
    rule naming any other class matches no element of it."""
    return any(
        set(re.findall(r"\.([\w-]+)", alternative)) <= classes
        for alternative in selector.split(",")
    )


@lru_cache(maxsize=64)
def stylesheet_for(classes: frozenset[str]) -> str:
    """``stylesheet()`` without the rules that match none of ``classes``, in the same
    order: resvg matches every rule against every element, and most of the board page's
    rules are for its layout (the picture is drawn the same, faster)."""
    kept = []
    for head, body in _rules(stylesheet()):
        if head.startswith("@"):
            inner = [f"{h} {{{b}}}" for h, b in _rules(body) if _may_match(h, classes)]
            if inner:
                kept.append(f"{head} {{ {' '.join(inner)} }}")
        elif _may_match(head, classes):
            kept.append(f"{head} {{{body}}}")
    return "\n".join(kept)


def classes_in(markup: str) -> frozenset[str]:
    """Every class an element of ``markup`` has."""
    return frozenset(" ".join(re.findall(r'class="([^"]*)"', markup)).split())


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


# How far outside a region an element may stand and still touch it, in drawing units:
# a track's stroke and amber shadow, a start marker's ring; a city's name reaches further
# sideways ("San Francisco", see drawing.MARGIN_X) than up.
NEAR = 40
NAME_NEAR = 90


def _near(region: Region, x1: float, y1: float, x2: float, y2: float, reach: float) -> bool:
    """Whether the box from ``(x1, y1)`` to ``(x2, y2)``, widened by ``reach``, meets
    ``region``."""
    return (
        min(x1, x2) - reach <= region.x + region.width
        and max(x1, x2) + reach >= region.x
        and min(y1, y2) - reach <= region.y + region.height
        and max(y1, y2) + reach >= region.y
    )


@cache
def _static_parts(board_name: str, name: str) -> tuple[tuple[str, tuple[float, ...]], ...]:
    """The drawing's static layer as its elements with their coordinates."""
    layer = static_layer(board_name, name)
    if name == "points":
        parts = re.findall(r"<circle[^>]*/>", layer)
    else:
        parts = [part for part in layer.split("\n    ") if part]
    found = []
    for part in parts:
        numbers = dict(re.findall(r'\b(x1|y1|x2|y2|cx|cy)="([-\d.]+)"', part))
        if name == "points":
            box = (numbers["cx"], numbers["cy"], numbers["cx"], numbers["cy"])
        else:
            box = (numbers["x1"], numbers["y1"], numbers["x2"], numbers["y2"])
        found.append((part, tuple(map(float, box))))
    return tuple(found)


def detail_markup(svg: dict, region: Region) -> str:
    """The markup of the reader's part: the elements that cannot touch ``region`` left
    out. resvg lays out (and styles, and shapes the names of) every element of a drawing,
    seen or not; the part shows the same pixels without them."""

    def layer(board_name: str, name: str) -> str:
        return "\n    ".join(
            part for part, box in _static_parts(board_name, name) if _near(region, *box, NEAR)
        )

    def near_point(item: dict, reach: float = NEAR) -> bool:
        return _near(region, item["x"], item["y"], item["x"], item["y"], reach)

    def near_line(item: dict) -> bool:
        return _near(region, item["x1"], item["y1"], item["x2"], item["y2"], NEAR)

    part = {
        **svg,
        "tracks": [t for t in svg["tracks"] if near_line(t)],
        "plan": [p for p in svg.get("plan", ()) if near_line(p)],
        "cities": [c for c in svg["cities"] if near_point(c, NAME_NEAR)],
        "starts": [s for s in svg["starts"] if near_point(s)],
        "lines": [line for line in svg["lines"] if near_line(line)],
        "points": [p for p in svg["points"] if near_point(p)],
    }
    whole = f'viewBox="0 0 {svg["width"]} {svg["height"]}"'
    view = f'viewBox="{region.x} {region.y} {region.width} {region.height}"'
    return str(render_svg(part, layer)).replace(whole, view, 1)


def render(markup: str, width: int, style_sheet: str | None = None) -> Image.Image:
    """``markup`` drawn ``width`` pixels wide (by default with the rules of the board
    page's stylesheet that may match it)."""
    drawn = resvg_py.svg_to_bytes(
        svg_string=markup,
        style_sheet=stylesheet_for(classes_in(markup)) if style_sheet is None else style_sheet,
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
    region = detail_region(state, viewer)
    detail = render(detail_markup(svg, region), WIDTH)
    overview = render(str(render_svg(svg)), OVERVIEW_WIDTH)
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
