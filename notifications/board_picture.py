"""A picture of the board for an email, drawn for its recipient when the email leaves.

The board page's drawing goes through resvg with one installed font, and each layer and
element is drawn alone, so a position gives the same bytes in every process, whatever the
shared cache held (with the same resvg and font); a small palette keeps it under
``MAX_BYTES``. A phone shows it too narrow for the whole board's names, so the reader's
part comes large on top and the whole board small below. Only cities the recipient may
see are marked. The board's own layers and each element on them are drawn once, and a
picture lays them (``layered``).
"""

from __future__ import annotations

import hashlib
import io
import math
import re
import threading
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import chain
from pathlib import Path
from typing import Any

import resvg_py
from django.conf import settings
from django.contrib.staticfiles import finders
from django.core.cache import caches
from django.utils.translation import gettext
from PIL import Image, ImageDraw

from games import rules
from games.pages.drawing import (
    SEAT_COLOURS,
    Highlight,
    board_svg,
    layout,
    render_svg,
    static_layer,
)
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


@lru_cache(maxsize=1024)
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


@dataclass(frozen=True)
class Scale:
    """Pixels a drawing unit across and down: resvg stretches a drawing to whole pixels,
    so a little more one way than the other."""

    sx: float
    sy: float


Box = tuple[int, int, int, int]  # pixels of the whole board at a scale: left, top, right, bottom

# The reader's part: DETAIL_WIDTH units over WIDTH pixels, its height rounded up.
DETAIL_PIXELS_HIGH = math.ceil(DETAIL_HEIGHT * WIDTH / DETAIL_WIDTH)
DETAIL = Scale(WIDTH / DETAIL_WIDTH, DETAIL_PIXELS_HIGH / DETAIL_HEIGHT)


def detail_region(state: rules.GameState, viewer: int) -> Region:
    """The reader's part of the board, centred on their network or cities: only the
    reader's own facts choose it, so it gives away no other hand. Its corner is on a
    whole pixel of the board drawn at the part's scale (``DETAIL``), so the board's
    layers drawn once serve every part."""
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
    x = min(
        max(round((cx - DETAIL_WIDTH / 2) * DETAIL.sx), 0), int((width - DETAIL_WIDTH) * DETAIL.sx)
    )
    y = min(
        max(round((cy - DETAIL_HEIGHT / 2) * DETAIL.sy), 0),
        int((height - DETAIL_HEIGHT) * DETAIL.sy),
    )
    return Region(x / DETAIL.sx, y / DETAIL.sy, DETAIL_WIDTH, DETAIL_HEIGHT)


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


def detail_box(region: Region) -> Box:
    """The pixels of the reader's part on the board drawn at its scale."""
    left, top = round(region.x * DETAIL.sx), round(region.y * DETAIL.sy)
    return left, top, left + WIDTH, top + DETAIL_PIXELS_HIGH


def detail_part(svg: dict, region: Region) -> dict:
    """The drawing ``svg`` without the game's elements and cities that cannot touch
    ``region`` (an email's drawing picks nothing: its grid is the board's static layers):
    resvg lays out (and styles, and shapes the names of) every element, seen or not."""

    def near_point(item: dict, reach: float = NEAR) -> bool:
        return _near(region, item["x"], item["y"], item["x"], item["y"], reach)

    def near_line(item: dict) -> bool:
        return _near(region, item["x1"], item["y1"], item["x2"], item["y2"], NEAR)

    return {
        **svg,
        "tracks": [t for t in svg["tracks"] if near_line(t)],
        "plan": [p for p in svg.get("plan", ()) if near_line(p)],
        "cities": [c for c in svg["cities"] if near_point(c, NAME_NEAR)],
        "starts": [s for s in svg["starts"] if near_point(s)],
    }


def rasterise(markup: str, style_sheet: str, **size: int | str | None) -> bytes:
    """The PNG resvg draws of ``markup`` with ``style_sheet``, with the one font."""
    return bytes(
        resvg_py.svg_to_bytes(
            svg_string=markup,
            style_sheet=style_sheet,
            skip_system_fonts=True,
            font_files=[str(FONT)],
            font_family="DejaVu Sans",
            sans_serif_family="DejaVu Sans",
            **size,
        )
    )


# The picture is drawn in layers, as resvg draws the markup (each element over the ones
# before it): what is the same for every game on a board (the grid, the crossing points)
# and each element a game may put on it (a track, a start marker, a city plain or as the
# reader's) is drawn once a deployment for each of the picture's two scales (kept in the
# shared cache, and in each process's memory); a picture only lays them.


@cache
def board_scale(board_name: str, kind: str) -> tuple[Scale, int, int]:
    """The scale of the reader's part ("detail") or of the whole board under it
    ("overview"), and the whole board's width and height in pixels at it."""
    _, width, height = layout(rules.get_board(board_name))
    if kind == "detail":
        return DETAIL, math.ceil(width * DETAIL.sx), math.ceil(height * DETAIL.sy)
    # As resvg draws the board's markup OVERVIEW_WIDTH wide: its size taken in whole
    # units, then stretched to whole pixels.
    across, down = round(width), round(height)
    pixels_high = math.ceil(down * OVERVIEW_WIDTH / across)
    return Scale(OVERVIEW_WIDTH / across, pixels_high / down), OVERVIEW_WIDTH, pixels_high


def draw(
    board_name: str, kind: str, box: Box, body: str, background: str | None = None
) -> Image.Image:
    """``body``, elements of the board's markup, drawn over the pixels ``box`` of the
    board at the scale ``kind``: on ``background``, or transparent (RGBA). Kept in the
    cache the deployment's processes share (a layer every picture of the board needs,
    drawn by the first process that needs it)."""
    markup = board_markup(board_name, kind, box, body)
    style_sheet = stylesheet_for(classes_in(markup))
    # Named by all that decides its pixels: a changed stylesheet, font or resvg is a new
    # name, never a stale picture.
    facts = "\0".join((markup, style_sheet, background or "", renderer()))
    key = "board-picture:" + hashlib.sha256(facts.encode()).hexdigest()
    cache = caches[settings.RAILMAIL_SHARED_CACHE]
    drawn = cache.get(key)
    if drawn is None:
        drawn = rasterise(markup, style_sheet, background=background)
        cache.set(key, drawn, timeout=KEPT_FOR)
    return Image.open(io.BytesIO(drawn)).convert("RGBA")


def board_markup(board_name: str, kind: str, box: Box, body: str) -> str:
    """A drawing of ``body`` over the pixels ``box`` of the board at the scale ``kind``."""
    scale, _, _ = board_scale(board_name, kind)
    left, top, right, bottom = box
    width, height = right - left, bottom - top
    view = f"{left / scale.sx} {top / scale.sy} {width / scale.sx} {height / scale.sy}"
    return (
        f'<svg class="board" width="{width}" height="{height}" viewBox="{view}" '
        f'preserveAspectRatio="none" xmlns="http://www.w3.org/2000/svg">{body}</svg>'
    )


KEPT_FOR = 30 * 24 * 3600  # seconds: a board's layers, drawn again a month on


@cache
def renderer() -> str:
    """What draws the pictures: resvg's version and the font's bytes."""
    font = hashlib.sha256(FONT.read_bytes()).hexdigest()
    return f"resvg {resvg_py.__resvg_version__} resvg_py {resvg_py.__version__} {font}"


@lru_cache(maxsize=8)
def board_layer(board_name: str, kind: str, name: str) -> Image.Image:
    """The whole board's static layer ``name`` ("lines", on the paper, or "points") at
    the scale ``kind``."""
    _, width, height = board_scale(board_name, kind)
    body = f'<g class="{name}">{static_layer(board_name, name)}</g>'
    background = PAPER if name == "lines" else None
    return draw(board_name, kind, (0, 0, width, height), body, background)


# The ground under the reader's part (the lines and crossing points on the paper) is drawn
# in tiles of these pixels, each when a part first lies on it.
TILE = (300, 210)


def ground_tiles(board_name: str, places: Sequence[tuple[int, int]]) -> list[Image.Image]:
    """The lines and crossing points on the paper in the tiles at ``places`` (column,
    row) of the board drawn at the part's scale (``fetched``: each named by its place and
    all that draws the board's layers, so a process finds it without sorting out the
    elements on it)."""

    def name(key: tuple) -> str:
        board, place = key
        facts = (board, repr((place, TILE, DETAIL, NEAR)), *layers_drawn_by(board))
        return "board-ground:" + hashlib.sha256("\0".join(facts).encode()).hexdigest()

    return fetched(
        tiles_kept,
        [(board_name, place) for place in places],
        name,
        lambda new: [zlib.compress(draw_tile(board, *place).tobytes(), 1) for board, place in new],
        lambda raw: Image.frombytes("RGB", TILE, zlib.decompress(raw)),
    )


def draw_tile(board_name: str, column: int, row: int) -> Image.Image:
    """The tile of the ground at ``(column, row)``, drawn."""
    left, top = column * TILE[0], row * TILE[1]
    box = (left, top, left + TILE[0], top + TILE[1])
    near = Region(left / DETAIL.sx, top / DETAIL.sy, TILE[0] / DETAIL.sx, TILE[1] / DETAIL.sy)
    body = "".join(
        f'<g class="{layer}">'
        + "".join(part for part, at in _static_parts(board_name, layer) if _near(near, *at, NEAR))
        + "</g>"
        for layer in ("lines", "points")
    )
    markup = board_markup(board_name, "detail", box, body)
    drawn = rasterise(markup, stylesheet_for(classes_in(markup)), background=PAPER)
    return Image.open(io.BytesIO(drawn)).convert("RGB")


@cache
def layers_drawn_by(board_name: str) -> tuple[str, ...]:
    """What draws the board's static layers: their markup, the stylesheet, resvg and the
    font (hashed: named with every tile)."""
    facts = (static_layer(board_name, "lines"), static_layer(board_name, "points"))
    return (hashlib.sha256("\0".join(facts).encode()).hexdigest(), stylesheet(), renderer())


def ground(board_name: str, kind: str, box: Box) -> Image.Image:
    """What lies under a game's track in ``box``: the lines on the paper, and at the
    part's scale the crossing points too (drawn again over the ends of track, which
    covers them: a smaller layer to lay)."""
    if kind == "overview":
        return board_layer(board_name, kind, "lines").crop(box).convert("RGB")
    canvas = Image.new("RGB", (box[2] - box[0], box[3] - box[1]))
    across, down = TILE
    places = [
        (column, row)
        for row in range(box[1] // down, (box[3] - 1) // down + 1)
        for column in range(box[0] // across, (box[2] - 1) // across + 1)
    ]
    for (column, row), tile in zip(places, ground_tiles(board_name, places), strict=True):
        canvas.paste(tile, (column * across - box[0], row * down - box[1]))
    return canvas


def _only(board_name: str, **parts: list) -> dict:
    """A drawing of ``board_name`` with nothing but ``parts`` on it, for ``render_svg``."""
    board = rules.get_board(board_name)
    _, width, height = layout(board)
    empty = ("lines", "tracks", "plan", "cities", "points", "starts")
    return {"board": board_name, "title": board.title, "width": width, "height": height} | {
        "picking": False,
        **dict.fromkeys(empty, []),
        **parts,
    }


def groups(markup: str) -> dict[str, str]:
    """The contents of the top-level groups of ``render_svg``'s markup, by class."""
    return dict(re.findall(r'<g class="([\w-]+)">\n    (.*?)\n  </g>', markup, flags=re.S))


# A game's elements (track, start markers and the rings of new ones, the crossing points
# at track's ends, the cities) are each drawn alone once, as a stamp: its pixels where
# it lies on the whole board at a scale. A picture lays its elements' stamps in the
# markup's order, and draws none.
#
# An element, by what decides its pixels (not its tooltip): its group, the box of its
# line or point in drawing units (x1, y1, x2, y2), then its other facts.
Element = tuple

# How far an element's drawing reaches from its line or point, in drawing units, by
# group: a track's (with its amber shadow), a crossing point's, a new start marker's
# ring, a start marker's.
REACH = {"tracks": 14, "plan-path": 14, "points": 4, "start-rings": 17, "starts": 12}
# A city's: its name, above it, as far sideways as NAME_NEAR, and its circle below.
CITY_ABOVE, CITY_BELOW = 30, 16


def game_elements(svg: dict, kind: str) -> tuple[list[Element], list[Element]]:
    """The elements of ``svg`` drawn for each game, in the markup's order: those under
    the board's crossing points (track, and the rings of new start markers, which touch
    no point) and those over them (the cities, the start markers). At the part's scale
    the points at track's ends are drawn again over it (its ground has them under it)."""
    lines = [*svg["tracks"], *svg.get("plan", ())]
    below: list[Element] = [
        ("tracks", t["x1"], t["y1"], t["x2"], t["y2"], t["seat"], t["colour"])
        + (t["exclusive"], t["last"])
        for t in svg["tracks"]
    ]
    below += [("plan-path", p["x1"], p["y1"], p["x2"], p["y2"]) for p in svg.get("plan", ())]
    if kind == "detail":
        ends = {(line[x], line[y]) for line in lines for x, y in (("x1", "y1"), ("x2", "y2"))}
        points = _static_parts(svg["board"], "points")
        below += [("points", *at) for _, at in points if at[:2] in ends]
    below += [("start-rings", s["x"], s["y"], s["x"], s["y"]) for s in svg["starts"] if s["last"]]
    above: list[Element] = [
        ("cities", c["x"], c["y"], c["x"], c["y"], c["name"], c["colour"], c["mine"])
        for c in svg["cities"]
    ]
    above += [
        ("starts", s["x"], s["y"], s["x"], s["y"], s["seat"], s["colour"], s["diamond"])
        + (s["last"], s["number"])
        for s in svg["starts"]
    ]
    return below, above


def element_box(board_name: str, kind: str, element: Element) -> Box:
    """The pixels of the whole board at the scale ``kind`` that ``element`` may cover."""
    scale, width, height = board_scale(board_name, kind)
    group, x1, y1, x2, y2 = element[:5]
    if group == "cities":
        left, top, right, bottom = x1 - NAME_NEAR, y1 - CITY_ABOVE, x1 + NAME_NEAR, y1 + CITY_BELOW
    else:
        reach = REACH[group]
        left, top = min(x1, x2) - reach, min(y1, y2) - reach
        right, bottom = max(x1, x2) + reach, max(y1, y2) + reach
    return (
        max(math.floor(left * scale.sx), 0),
        max(math.floor(top * scale.sy), 0),
        min(math.ceil(right * scale.sx), width),
        min(math.ceil(bottom * scale.sy), height),
    )


def element_markup(board_name: str, element: Element) -> str:
    """``element`` as ``render_svg`` writes it, in its group."""
    group, x1, y1, x2, y2, *facts = element
    if group == "points":
        [part] = [
            part for part, at in _static_parts(board_name, "points") if at == (x1, y1, x2, y2)
        ]
        return f'<g class="points">{part}</g>'
    if group == "tracks":
        seat, colour, exclusive, last = facts
        at = {"x1": x1, "y1": y1, "x2": x2, "y2": y2}
        parts = {
            "tracks": [
                {
                    **at,
                    "seat": seat,
                    "colour": colour,
                    "exclusive": exclusive,
                    "last": last,
                    "title": "",
                }
            ]
        }
    elif group == "plan-path":
        parts = {"plan": [{"x1": x1, "y1": y1, "x2": x2, "y2": y2, "line": 0}]}
    elif group == "cities":
        name, colour, mine = facts
        parts = {"cities": [{"name": name, "colour": colour, "x": x1, "y": y1, "mine": mine}]}
    else:
        seat, colour, diamond, last, number = facts if group == "starts" else (0, "", "", True, 0)
        parts = {
            "starts": [
                {
                    "seat": seat,
                    "x": x1,
                    "y": y1,
                    "colour": colour,
                    "title": "",
                    "diamond": diamond,
                    "last": last,
                    "number": number,
                }
            ]
        }
    markup = str(render_svg(_only(board_name, **parts), lambda *_: ""))
    return f'<g class="{group}">{groups(markup)[group]}</g>'


@dataclass(frozen=True)
class Stamp:
    """An element's pixels (RGBA, cut to those it covers) and where they go on the board."""

    image: Image.Image
    left: int
    top: int


class Kept:
    """The most recently used ``most`` of each process's stamps or tiles (a threaded
    server's requests may share them)."""

    def __init__(self, most: int) -> None:
        self.most = most
        self.stamps: dict[tuple, Any] = {}
        self.lock = threading.Lock()

    def get(self, key: tuple) -> Any:
        """What is kept under ``key``, or False."""
        with self.lock:
            found = self.stamps.pop(key, False)
            if found is not False:
                self.stamps[key] = found
            return found

    def put(self, key: tuple, value: Any) -> None:
        with self.lock:
            self.stamps[key] = value
            while len(self.stamps) > self.most:
                del self.stamps[next(iter(self.stamps))]

    def cache_clear(self) -> None:
        with self.lock:
            self.stamps.clear()


kept = Kept(most=4096)  # stamps: about 10 KB each at the part's scale, under 1 KB whole
tiles_kept = Kept(most=64)  # the ground's tiles (250 KB each): all of both boards' 50


def stamps(board_name: str, wanted: Sequence[tuple[str, Element]]) -> list[Stamp | None]:
    """The stamps of ``wanted``, elements each at a scale (``None``: it covers no pixel),
    as ``fetched`` finds them (those missing drawn each alone: ``draw_each``)."""

    def name(key: tuple) -> str:
        facts = f"{key[0]}\0{key[1:]!r}\0{drawn_by()}"
        return "board-stamp:" + hashlib.sha256(facts.encode()).hexdigest()

    def draw_new(new: list[tuple]) -> list[tuple | None]:
        boxes = [element_box(board_name, kind, element) for _, kind, element in new]
        drawn = draw_each(
            board_name,
            [
                (kind, box, element_markup(board_name, element))
                for (_, kind, element), box in zip(new, boxes, strict=True)
            ],
        )
        return [packed(image, box) for image, box in zip(drawn, boxes, strict=True)]

    return fetched(kept, [(board_name, *key) for key in wanted], name, draw_new, unpacked)


def fetched(
    process: Kept,
    keys: Sequence[tuple],
    name: Callable[[tuple], str],
    make: Callable[[list[tuple]], list[Any]],
    unpack: Callable[[Any], Any],
) -> list[Any]:
    """What is kept under each of ``keys``: in this process (``process``), else in the
    cache the deployment's processes share under ``name(key)`` (one request for all),
    else made (``make``: those missing at once, as the shared cache keeps them) and kept
    in both."""
    found = {key: process.get(key) for key in keys}
    missing = [key for key, value in found.items() if value is False]
    if missing:
        names = {key: name(key) for key in missing}
        cache = caches[settings.RAILMAIL_SHARED_CACHE]
        shared = cache.get_many(list(names.values()))
        new = [key for key in missing if names[key] not in shared]
        if new:
            made = {names[key]: value for key, value in zip(new, make(new), strict=True)}
            cache.set_many(made, timeout=KEPT_FOR)
            shared.update(made)
        for key in missing:
            found[key] = unpack(shared[names[key]])
            process.put(key, found[key])
    return [found[key] for key in keys]


@cache
def drawn_by() -> str:
    """All that decides a stamp's pixels besides its element, named in the shared cache
    (a changed stylesheet, font, resvg, markup, reach or framing is a new name, never a
    stale stamp): the drawing of an element of each kind stands for the code's."""
    board_name = "transamerica"
    samples = [
        ("tracks", 56.0, 28.0, 96.0, 28.0, 1, SEAT_COLOURS[1], exclusive, last)
        for exclusive in (False, True)
        for last in (False, True)
    ]
    samples += [
        ("plan-path", 56.0, 28.0, 96.0, 28.0),
        ("points", *_static_parts(board_name, "points")[0][1]),
        ("start-rings", 56.0, 28.0, 56.0, 28.0),
        ("cities", 56.0, 28.0, 56.0, 28.0, "Name", "red", False),
        ("cities", 56.0, 28.0, 56.0, 28.0, "Name", "red", True),
        ("starts", 56.0, 28.0, 56.0, 28.0, 1, SEAT_COLOURS[1], "1,2 3,4", True, 2),
    ]
    facts = [stylesheet(), renderer()]
    for kind in ("detail", "overview"):
        for element in samples:
            # As ``draw_each`` frames it: stamps drawn otherwise (side by side on one
            # canvas, before) are other names, never mixed into a picture with these.
            box = element_box(board_name, kind, element)
            facts.append(board_markup(board_name, kind, box, element_markup(board_name, element)))
    return hashlib.sha256("\0".join(facts).encode()).hexdigest()


def packed(image: Image.Image, box: Box) -> tuple | None:
    """A stamp as the shared cache keeps it: cut to the pixels it covers, compressed."""
    covered = image.getbbox()
    if covered is None:
        return None
    cut = image.crop(covered)
    return (box[0] + covered[0], box[1] + covered[1], cut.size, zlib.compress(cut.tobytes(), 1))


def unpacked(kept_as: tuple | None) -> Stamp | None:
    if kept_as is None:
        return None
    left, top, size, data = kept_as
    return Stamp(Image.frombytes("RGBA", size, zlib.decompress(data)), left, top)


def draw_each(board_name: str, drawings: Sequence[tuple[str, Box, str]]) -> list[Image.Image]:
    """Each of ``drawings`` (elements of the board's markup, over the pixels ``box`` of
    the board at the scale ``kind``) drawn transparent, as ``draw`` draws it: each on a
    canvas of its own, so its pixels are the same whichever others are drawn with it (on
    a shared canvas resvg's rounding of an edge followed a stamp's place there, and so a
    picture's bytes followed the shared cache's history)."""
    drawn = []
    for kind, box, body in drawings:
        markup = board_markup(board_name, kind, box, body)
        png = rasterise(markup, stylesheet_for(classes_in(markup)))
        drawn.append(Image.open(io.BytesIO(png)).convert("RGBA"))
    return drawn


def layered(svg: dict, kind: str, box: Box) -> Image.Image:
    """The pixels ``box`` of ``svg`` drawn at the scale ``kind`` in layers, each element
    over the ones before it as in its markup: the same pixels as drawing the markup at
    once, but for a level or so of a colour where anti-aliased edges overlap."""
    board_name = svg["board"]
    canvas = ground(board_name, kind, box)
    below, above = game_elements(svg, kind)
    lay(canvas, stamps(board_name, [(kind, element) for element in below]), box)
    if kind == "overview":
        points = board_layer(board_name, kind, "points").crop(box)
        canvas.paste(points, (0, 0), points)
    lay(canvas, stamps(board_name, [(kind, element) for element in above]), box)
    return canvas


def lay(canvas: Image.Image, laid: Iterable[Stamp | None], box: Box) -> None:
    """Each of ``laid`` over ``canvas``, the pixels ``box`` of the board (the paste cuts
    it to the canvas): pasted through its own alpha, as over an opaque canvas."""
    for stamp in laid:
        if stamp is not None:
            canvas.paste(stamp.image, (stamp.left - box[0], stamp.top - box[1]), stamp.image)


def warm() -> None:
    """Load what every picture needs: the stylesheet, what draws the pictures, and each
    board's layers at the scale of the whole board (from the shared cache, or drawn)."""
    drawn_by()
    for board_name in rules.BOARD_NAMES:
        for layer in ("lines", "points"):
            board_layer(board_name, "overview", layer)


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
    part = detail_part(svg, region)
    # Every stamp the picture needs, at once: one request to the shared cache.
    stamps(
        svg["board"],
        [
            (kind, element)
            for kind, whole in (("detail", part), ("overview", svg))
            for element in chain(*game_elements(whole, kind))
        ],
    )
    detail = layered(part, "detail", detail_box(region))
    _, width, height = board_scale(svg["board"], "overview")
    overview = layered(svg, "overview", (0, 0, width, height))
    canvas = Image.new("RGB", (WIDTH, detail.height + GAP + overview.height), PAPER)
    canvas.paste(detail, (0, 0))
    left, top = (WIDTH - OVERVIEW_WIDTH) // 2, detail.height + GAP
    canvas.paste(overview, (left, top))
    pen = ImageDraw.Draw(canvas)
    pen.rectangle((0, 0, WIDTH - 1, detail.height - 1), outline="#b9b2a3")
    scale = OVERVIEW_WIDTH / svg["width"]
    frame = (
        left + region.x * scale,
        top + region.y * scale,
        left + (region.x + region.width) * scale,
        top + (region.y + region.height) * scale,
    )
    pen.rectangle(frame, outline="#1d232b", width=2)
    small = canvas.quantize(palette=palette_for(canvas), dither=Image.Dither.NONE)
    out = io.BytesIO()
    # zlib's level 3: twice as fast as its default (6) for an eighth more bytes (47 KB at
    # most in the tests' positions, against 40), far under MAX_BYTES.
    small.save(out, format="PNG", compress_level=3)
    return out.getvalue()


def palette_for(canvas: Image.Image) -> Image.Image:
    """COLOURS colours for ``canvas``: a median cut of one pixel in SAMPLE across and
    down (the colours themselves, not averages), each colour near one the board is drawn
    in made that one. Pillow gives each pixel the nearest colour of a palette by a coarse
    table, which put the paper 4 levels off: with its own colour in the palette it stays
    it."""
    sample = canvas.resize(
        (canvas.width // SAMPLE, canvas.height // SAMPLE), Image.Resampling.NEAREST
    )
    palette = sample.quantize(
        colors=COLOURS, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
    )
    entries = palette.getpalette() or []
    snapped = []
    for entry in zip(entries[0::3], entries[1::3], entries[2::3], strict=True):
        snapped.extend(snap(entry))
    palette.putpalette(snapped)
    return palette


SAMPLE = 2
SNAP = 8  # levels of a colour: a palette's colour this near one of the board's is made it


@lru_cache(maxsize=4096)
def snap(colour: tuple[int, int, int]) -> tuple[int, int, int]:
    """``colour``, or the board's own colour SNAP levels or nearer to it."""
    r, g, b = colour
    own = min(board_colours(), key=lambda c: max(abs(c[0] - r), abs(c[1] - g), abs(c[2] - b)))
    return own if _apart(own, colour) <= SNAP else colour


@cache
def board_colours() -> tuple[tuple[int, int, int], ...]:
    """The colours the board is drawn in: its stylesheet's and the seats'."""
    found = re.findall(r"#([0-9a-fA-F]{6})\b", " ".join((stylesheet(), *SEAT_COLOURS)))
    return tuple(sorted({tuple(int(code[i : i + 2], 16) for i in (0, 2, 4)) for code in found}))


def _apart(a: Sequence[int], b: Sequence[int]) -> int:
    return max(abs(x - y) for x, y in zip(a, b, strict=True))


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
