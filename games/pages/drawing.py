"""Drawing a board and a game state as SVG, for the board page and the replay page.

``board_svg`` returns plain data; ``render_svg`` turns it into markup. The layers the same
for every game on a board are drawn once per board and process (``static_layer``).

The only hand marked is ``viewer``'s own (or ``marked_cities`` a caller knows are
public); every other city is drawn the same whoever's hand it is in.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from games import rules
from games.words import places
from games.words.city_names import city_name

SCALE = 40  # pixels between neighbouring crossing points
MARGIN = 28
# Wider at the sides: the longest city label ("San Francisco") reaches this far.
MARGIN_X = 56
# Seat colours for built track and start markers, distinct from the five city colours.
SEAT_COLOURS = ("#1d232b", "#7b3fa0", "#8b5a2b", "#0f7c80", "#c2185b", "#6b7d12")


@dataclass(frozen=True)
class Highlight:
    """What the last turn changed on the board: marked so players see it at a glance."""

    seat: int | None = None
    lines: frozenset[int] = field(default_factory=frozenset)
    start: int | None = None  # a point index
    starts: frozenset[int] = field(default_factory=frozenset)  # more of them (several turns)


def seat_colour(position: int) -> str:
    return SEAT_COLOURS[position % len(SEAT_COLOURS)]


def xy(point: rules.Point) -> tuple[float, float]:
    """Where a crossing point is drawn, before the margin shift."""
    col, row = point
    return ((col - row / 2) * SCALE, row * SCALE * math.sqrt(3) / 2)


@cache
def layout(board: rules.Board) -> tuple[list[tuple[float, float]], float, float]:
    """Where each crossing point of ``board`` is drawn, and the drawing's width and height."""
    raw = [xy(p) for p in board.points]
    min_x = min(x for x, _ in raw)
    min_y = min(y for _, y in raw)
    pos = [(round(x - min_x + MARGIN_X, 1), round(y - min_y + MARGIN, 1)) for x, y in raw]
    width = round(max(x for x, _ in pos) + MARGIN_X, 1)
    height = round(max(y for _, y in pos) + MARGIN, 1)
    return pos, width, height


def last_turn(state: rules.GameState, events: Sequence[dict]) -> Highlight:
    """The last start marker or track of the current round (``events`` are engine events)."""
    board = state.board
    for event in reversed(events):
        kind = event["type"]
        if kind == rules.ROUND_STARTED:
            break
        if kind == rules.START_PLACED:
            return Highlight(seat=event["seat"], start=board.point_index[tuple(event["point"])])
        if kind == rules.TRACK_BUILT:
            ids = frozenset(board.line_id(rules.as_line(line)) for line in event["lines"])
            return Highlight(seat=event["seat"], lines=ids)
    return Highlight()


def since_last_turn(state: rules.GameState, events: Sequence[dict], position: int) -> Highlight:
    """Everything the others did since ``position`` last moved in this round."""
    board = state.board
    lines: set[int] = set()
    starts: set[int] = set()
    for event in rules.moves_since_last_turn(events, position):
        if event["type"] == rules.START_PLACED:
            starts.add(board.point_index[tuple(event["point"])])
        elif event["type"] == rules.TRACK_BUILT:
            lines.update(board.line_id(rules.as_line(line)) for line in event["lines"])
    return Highlight(lines=frozenset(lines), starts=frozenset(starts))


def board_svg(
    state: rules.GameState,
    viewer: int | None = None,
    *,
    highlight: Highlight | None = None,
    marked_cities: Iterable[str] | None = None,
    seat_names: Sequence[str] = (),
    pickable_lines: Iterable[int] = (),
    pickable_points: Iterable[int] = (),
    planned: Sequence[int] = (),
) -> dict:
    """The drawing of ``state`` as ``viewer`` may see it, as data for ``render_svg``
    (``marked_cities``: by default the viewer's own hand, and nobody else's)."""
    board = state.board
    highlight = highlight or Highlight()
    if marked_cities is None:
        marked_cities = _own_hand(state, viewer)
    marked = set(marked_cities)
    pickable_lines = set(pickable_lines)
    pickable_points = set(pickable_points)

    pos, width, height = layout(board)

    def name(seat: int) -> str:
        if seat < len(seat_names):
            return seat_names[seat]
        return gettext("Seat %(number)s") % {"number": seat + 1}

    lines = []
    tracks = []
    for line_id, (a, b, cost) in enumerate(board.lines):
        (x1, y1), (x2, y2) = pos[a], pos[b]
        geometry = {"id": line_id, "x1": x1, "y1": y1, "x2": x2, "y2": y2}
        lines.append(
            {
                **geometry,
                "cost": cost,
                "pickable": line_id in pickable_lines,
                "title": places.line_label(board, line_id) if line_id in pickable_lines else "",
            }
        )
        track = state.built.get(line_id)
        if track is not None:
            tracks.append(
                {
                    **geometry,
                    "seat": track.seat,
                    "colour": seat_colour(track.seat),
                    "exclusive": track.exclusive,
                    "last": line_id in highlight.lines,
                    "title": (
                        gettext("Built by %(player)s (coloured track)")
                        if track.exclusive
                        else gettext("Built by %(player)s")
                    )
                    % {"player": name(track.seat)},
                }
            )
    cities = [
        {
            "name": city_name(city.name),
            "colour": city.colour,
            "x": pos[board.point_index[city.point]][0],
            "y": pos[board.point_index[city.point]][1],
            "point": board.point_index[city.point],
            "mine": city.name in marked,
        }
        for city in board.cities
    ]
    points = [
        {"id": i, "x": x, "y": y, "pickable": i in pickable_points} for i, (x, y) in enumerate(pos)
    ]
    starts = [
        {
            "seat": seat,
            "x": pos[point][0],
            "y": pos[point][1],
            "colour": seat_colour(seat),
            "diamond": _diamond(*pos[point]),
            "last": point == highlight.start or point in highlight.starts,
            "title": gettext("%(player)s's start marker") % {"player": name(seat)},
            # By number as well as colour (the page's key says whose).
            "number": seat + 1,
        }
        for seat, point in enumerate(state.starts)
        if point is not None
    ]
    plan = [
        {"x1": pos[a][0], "y1": pos[a][1], "x2": pos[b][0], "y2": pos[b][1], "line": line_id}
        for line_id in planned
        for a, b, _cost in [board.lines[line_id]]
    ]
    return {
        "board": board.name,
        "title": board.title,
        "width": width,
        "height": height,
        "lines": lines,
        "tracks": tracks,
        "cities": cities,
        "points": points,
        "starts": starts,
        "plan": plan,
        "picking": bool(pickable_lines or pickable_points),
    }


# Markup. Hand membership shows only in the "mine" class: the viewer's own cities.


def _line(kind: str, x1: float, y1: float, x2: float, y2: float, rest: str = "") -> str:
    return f'<line class="{kind}"{rest} x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}"'


def _point(x: float, y: float) -> str:
    return f'<circle class="point" cx="{x}" cy="{y}" r="2"/>'


@cache
def static_layer(board_name: str, name: str) -> str:
    """A layer the same for every game on the board: "lines" or "points"."""
    board = rules.get_board(board_name)
    pos, _, _ = layout(board)
    if name == "points":
        return "".join(_point(x, y) for x, y in pos)
    if name != "lines":
        raise ValueError(f"no static layer {name!r}")
    out = []
    for a, b, cost in board.lines:
        (x1, y1), (x2, y2) = pos[a], pos[b]
        out.append(_line(f"line cost-{cost}", x1, y1, x2, y2) + "/>")
        if cost == 2:
            out.append(_line("line-gap", x1, y1, x2, y2) + "/>")
        out.append("\n    ")
    return "".join(out)


def render_svg(
    svg: dict, layer: Callable[[str, str], str] = static_layer, *, title_id: str = "board-title"
) -> SafeString:
    """The markup of a drawing made by ``board_svg``; a caller that caches the page may
    give a ``layer`` that leaves a placeholder to fill in later."""
    board = svg["board"]
    # A board to pick on is one tab stop: the arrow keys move between crossing points.
    picking = ' role="img"'
    if svg["picking"]:
        picking = ' tabindex="0" role="application" aria-describedby="board-keys"'
    out = [
        f'<svg class="board{" picking" if svg["picking"] else ""}" '
        f'viewBox="0 0 {svg["width"]} {svg["height"]}"{picking} '
        f'aria-labelledby="{title_id}" xmlns="http://www.w3.org/2000/svg">\n'
        f'  <title id="{title_id}">{escape(board_title(svg["title"]))}</title>\n'
        '  <g class="lines">\n    ',
        layer(board, "lines"),
        '\n  </g>\n  <g class="tracks">\n    ',
    ]
    for t in svg["tracks"]:
        kind = f"track seat-{t['seat']}"
        kind += (" exclusive" if t["exclusive"] else "") + (" last" if t["last"] else "")
        line = _line(kind, t["x1"], t["y1"], t["x2"], t["y2"], f' stroke="{t["colour"]}"')
        out.append(f"{line}><title>{escape(t['title'])}</title></line>\n    ")
    # plan.js draws a route being picked in this same group.
    out.append('\n  </g>\n  <g class="plan-path">\n    ')
    for n, p in enumerate(svg.get("plan", ()), 1):
        rest = f' data-planned="{p["line"]}" data-order="{n}"'
        out.append(_line("planned", p["x1"], p["y1"], p["x2"], p["y2"], rest) + "/>")
    out.append('\n  </g>\n  <g class="points">\n    ')
    pickable_points = [p for p in svg["points"] if p["pickable"]]
    if pickable_points:
        out.extend(_point(p["x"], p["y"]) for p in svg["points"] if not p["pickable"])
    else:
        out.append(layer(board, "points"))
    out.append('\n  </g>\n  <g class="start-rings">\n    ')
    for s in svg["starts"]:
        if s["last"]:
            # Black and white show on any city's colour; under the cities, hiding no name.
            out.append(
                f'<circle class="start-ring" cx="{s["x"]}" cy="{s["y"]}" r="13"/>'
                f'<circle class="start-ring inner" cx="{s["x"]}" cy="{s["y"]}" r="13"/>'
            )
    out.append('\n  </g>\n  <g class="cities">\n    ')
    for c in svg["cities"]:
        mine = " mine" if c["mine"] else ""
        out.append(
            f'<g class="city {c["colour"]}{mine}"><circle cx="{c["x"]}" cy="{c["y"]}" '
            f'r="{9 if c["mine"] else 6}"/><text x="{c["x"]}" y="{c["y"]}" dy="-10">'
            f"{escape(c['name'])}</text></g>\n    "
        )
    out.append('\n  </g>\n  <g class="starts">\n    ')
    for s in svg["starts"]:
        out.append(
            f'<polygon class="start seat-{s["seat"]}{" last" if s["last"] else ""}" '
            f'points="{s["diamond"]}" fill="{s["colour"]}"><title>{escape(s["title"])}</title>'
            f'</polygon><text class="start-label" x="{s["x"]}" y="{s["y"]}" dy="3">'
            f"{s['number']}</text>\n    "
        )
    # Thin marks under the wide, transparent lines that a click hits.

    out.append('\n  </g>\n  <g class="marks">\n    ')
    for line in svg["lines"]:
        if line["pickable"]:
            rest = f' data-mark="{line["id"]}"'
            out.append(_line("mark", line["x1"], line["y1"], line["x2"], line["y2"], rest) + "/>")
    out.append('\n  </g>\n  <g class="picks">\n    ')
    for p in pickable_points:
        out.append(
            f'<circle class="point pickable" cx="{p["x"]}" cy="{p["y"]}" r="7" '
            f'data-point="{p["id"]}" tabindex="-1"/>'
        )
    out.append("\n    ")
    for line in svg["lines"]:
        if line["pickable"]:
            rest = f' data-line="{line["id"]}"'
            tag = _line("pick", line["x1"], line["y1"], line["x2"], line["y2"], rest)
            out.append(f'{tag} tabindex="-1"><title>{escape(line["title"])}</title></line>\n    ')
    out.append("\n  </g>\n</svg>")
    # Every text that comes from a game or a player is escaped above.
    return mark_safe("".join(out))


def board_title(title: str) -> str:
    """What the drawing is: "TransEuropa board"."""
    return gettext("%(board)s board") % {"board": title}


def _diamond(x: float, y: float, r: float = 8) -> str:
    top, right, bottom, left = round(y - r, 1), round(x + r, 1), round(y + r, 1), round(x - r, 1)
    return f"{x},{top} {right},{y} {x},{bottom} {left},{y}"


def _own_hand(state: rules.GameState, viewer: int | None) -> tuple[str, ...]:
    if viewer is None or not state.hands:
        return ()
    return state.hands[viewer]
