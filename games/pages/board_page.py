"""What a seat's board page shows: the data behind games/board.html.

Computed for one viewing seat: other seats' hands appear only once they are public. The
page is rendered once per snapshot and ``PageFacts`` and cached (games.pages.page_cache);
the CSRF token and the table talk are filled in per request.
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.http import HttpRequest
from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.utils.translation import gettext, pgettext

from games import rules
from games.bots import COVER_BOT
from games.derived import snapshots
from games.forms import MoveForm
from games.models import Game, Seat
from games.pages import consent_panel, page_cache, plan_panel, talk_panel
from games.pages.drawing import (
    board_svg,
    last_turn,
    layout,
    render_svg,
    seat_colour,
    since_last_turn,
    static_layer,
)
from games.pages.table_read import SeatAtTable, SeatRow
from games.services import rematch
from games.words import bot_levels, narration, places, time_zones
from games.words.city_names import city_name, city_names


@dataclass(frozen=True)
class PageFacts:
    """What a board page shows besides the game's log: plain values, for the cache key."""

    title: str
    deadline: datetime | None
    viewer: int
    viewer_is_bot: bool
    token: str  # the seat link's, for the page's own links
    timezone: str
    seats: tuple[SeatRow, ...]

    @classmethod
    def of(cls, at: SeatAtTable, token: str) -> PageFacts:
        """The facts of a seat's page, from what was read with the seat."""
        seat = at.seat
        game = seat.game
        account = seat.user.timezone if seat.user_id else None
        return cls(
            title=game.display_name,
            deadline=game.deadline,
            viewer=seat.position,
            viewer_is_bot=seat.is_bot,
            token=token,
            timezone=time_zones.zone_name_for(account, game, seat.browser_time_zone),
            seats=at.rows,
        )


@dataclass(frozen=True)
class Insert:
    """A part of the board page made by the page's caller, given the CSRF token."""

    make: Callable[[str], str]
    # What it shows when only the token changes it on every visit through the link (in
    # its language): it is then part of the cached page. None: made for each request.
    fixed: tuple | None = None


def is_my_turn(state: rules.GameState, table: PageFacts) -> bool:
    return state.seat_to_move == table.viewer and not table.viewer_is_bot


def seat_page(
    snapshot: snapshots.Snapshot,
    table: PageFacts,
    form: MoveForm | None,
    layer=static_layer,
    planned: Sequence[int] = (),
) -> dict:
    """The template context of the board part of a seat's page (``form``: None when it
    is not the seat's turn; ``planned``: the lines the viewer's own plan means to build)."""
    state = snapshot.state
    names = [s.name for s in table.seats]
    viewer = table.viewer
    my_turn = form is not None
    pickable_lines = set(form.first_line_ids) | set(form.second_line_ids) if my_turn else ()
    pickable_points = form.start_point_ids if my_turn else ()
    visible = rules.hands_visible_to(state, viewer) if state.hands else []
    players = [
        {
            "position": s.position,
            "name": s.name,
            "colour": seat_colour(s.position),
            "score": state.scores[s.position] if state.scores else None,
            "is_bot": s.is_bot or s.autopilot,
            # A person's seat on autopilot is played by the cover bot.
            "bot_words": bot_levels.seat_words(s.bot_level if s.is_bot else COVER_BOT),
            "joined": s.joined,
            "to_move": state.seat_to_move == s.position,
            "is_viewer": s.position == viewer,
            "hand": (city_names(visible[s.position]) if visible and s.position != viewer else None),
        }
        for s in table.seats
    ]
    own_hand = []
    missing = None
    if state.hands and state.phase in (rules.PLACING, rules.BUILDING, rules.ROUND_OVER):
        board = state.board
        joined = set(rules.network(state, viewer))
        own_hand = [
            {
                "name": city_name(name),
                "colour": board.city_by_name[name].colour,
                "reached": board.city_point(name) in joined,
            }
            for name in state.hands[viewer]
        ]
        if state.starts[viewer] is not None:
            missing = rules.missing_cost(state, viewer)
    events = list(snapshot.round_events)
    if viewer is not None and state.seat_to_move is not None:
        highlight = since_last_turn(state, events, viewer)
        since = narration.since_last_turn(state, viewer, events, names)
    else:
        highlight, since = last_turn(state, events), []
    svg = board_svg(
        state,
        viewer,
        highlight=highlight,
        seat_names=names,
        pickable_lines=pickable_lines,
        pickable_points=pickable_points,
        planned=planned,
    )
    to_move = state.seat_to_move
    return {
        "title": table.title,
        "deadline": table.deadline,
        "tz": zoneinfo.ZoneInfo(table.timezone),
        "token": table.token,
        "state": state,
        "players": players,
        "own_hand": own_hand,
        "missing_cost": missing,
        "my_turn": my_turn,
        "form": form,
        "to_move": names[to_move] if to_move is not None else None,
        "last_scoring": _last_scoring(state, names),
        "winners": [names[w] for w in state.winners],
        "since": since,
        "svg": render_svg(svg, layer),
        "pick_data": _pick_data(state, viewer, form) if my_turn else None,
    }


def page(
    request: HttpRequest,
    seat: Seat,
    table: PageFacts,
    around: dict,
    **inserts: Insert,
) -> bytes:
    """``seat``'s whole board page as a GET shows it, as UTF-8.

    Cached for its inputs (``around``: plain values only); the CSRF token, the table talk
    (unless nobody has talked yet) and the ``inserts`` that are not ``fixed`` are filled
    in per request.
    """
    game, token = seat.game, table.token
    # Most tables are quiet: their talk panel is part of the cached page.
    quiet = talk_panel.quiet(seat)
    finished = game.status == Game.Status.FINISHED
    played_again = finished and Game.objects.filter(follows_id=game.pk).exists()
    # Read only once the game is over: a running game's page asks nothing more.
    may_play_again = finished and rematch.may_ask(seat)
    inputs = (
        snapshots.key_for(game.version, game.log_digest),
        table,
        around,
        (seat.autopilot, seat.timeouts_in_a_row, seat.notices_muted),
        (played_again, may_play_again),
        # The owner's plan and browser zone: the plan panel is in the cached page.
        (plan_panel.key(seat), seat.browser_time_zone),
        quiet,
        tuple((name, insert.fixed) for name, insert in sorted(inserts.items())),
    )

    def render(holes: page_cache.Holes) -> str:
        snapshot = snapshots.current(game)
        plan = plan_panel.facts(seat, snapshot, token)
        planned = plan["path_ids"] if plan else ()
        context = {
            "game": game,
            "seat": seat,
            "token": token,
            **around,
            **board_parts(game, table, holes, planned),
            "talk": (
                talk_panel.quiet_panel(seat, token, holes.csrf_token)
                if quiet
                else holes.insert("talk")
            ),
            "consent": consent_panel.panel(seat, token, snapshot, table.seats, holes.csrf_token),
            **{
                name: insert.make(holes.csrf_token)
                if insert.fixed is not None
                else holes.insert(name)
                for name, insert in inserts.items()
            },
            "csrf_token": holes.csrf_token,
            "plan": plan,
            "played_again": played_again,
            "may_play_again": may_play_again,
        }
        return render_to_string("games/board.html", context, request)

    # One token for the page's forms and the panel's: each get_token() masks it anew.
    csrf_token = get_token(request)
    filled = {
        name: insert.make(csrf_token) for name, insert in inserts.items() if insert.fixed is None
    }
    if not quiet:
        filled["talk"] = talk_panel.panel(request, seat, token, csrf_token=csrf_token)
    # Without a digest no key names this log: rendered afresh.
    fresh = not game.log_digest
    return page_cache.page(
        request,
        "board-page",
        inputs,
        render,
        fresh=fresh,
        csrf_token=csrf_token,
        **filled,
    )


def board_parts(
    game: Game, table: PageFacts, holes: page_cache.Holes, planned: Sequence[int] = ()
) -> dict[str, str]:
    """The board part of a page, with the move form when it is the viewer's turn."""
    snapshot = snapshots.current(game)
    state = snapshot.state
    form = None
    if is_my_turn(state, table):
        form = MoveForm(state=state, seat=table.viewer, initial={"version": snapshot.version})
    context = seat_page(snapshot, table, form, holes.layer, planned)
    context["round_summary"] = round_summary(game, snapshot, table, holes.layer)
    context["csrf_token"] = holes.csrf_token
    return {
        "main": render_to_string("games/_board_main.html", context),
        "scripts": render_to_string("games/_board_scripts.html", context),
    }


def _last_scoring(state: rules.GameState, names: list[str]) -> list[dict] | None:
    """The last scored round, hands included: public once the round is scored."""
    scoring = state.last_scoring
    if not scoring:
        return None
    return [
        {
            "name": name,
            "loss": scoring["losses"][n],
            "score": scoring["scores"][n],
            "hand": city_names(scoring["hands"][n]) if "hands" in scoring else [],
            "connected": n in scoring["connected"],
        }
        for n, name in enumerate(names)
    ]


def _pick_data(state: rules.GameState, viewer: int, form: MoveForm) -> dict:
    """What the board's script needs to let the player pick only legal moves: public facts."""
    board = state.board
    lines = {
        str(i): [board.lines[i][0], board.lines[i][1], board.lines[i][2]]
        for i in sorted(set(form.first_line_ids) | set(form.second_line_ids))
    }
    network = sorted(rules.network(state, viewer))
    pos, _width, _height = layout(board)
    # Where the view starts on a phone: the middle of the network, else of the cities.
    around = network or [board.city_point(name) for name in state.hands[viewer]]
    centre = [sum(pos[p][i] for p in around) / len(around) for i in (0, 1)] if around else None
    return {
        "placing": form.placing,
        "network": network,
        "first": form.first_line_ids,
        "after": _by_line(form.seconds_after(coloured=False)),
        "after_coloured": _by_line(form.seconds_after(coloured=True)) if form.may_colour else None,
        "lines": lines,
        "positions": pos,
        "coords": [list(point) for point in board.points],
        "names": list(places.point_names(board)),
        "directions": places.direction_names(),
        # The script fills in the placeholders itself.
        "words": {
            "from": gettext("From %(point)s, build towards:"),
            "nothing_from": gettext("No line you may build starts at %(point)s."),
            "line": pgettext("line", "%(one)s to %(other)s"),
            "at": gettext("Crossing point: %(point)s"),
            "double": gettext("%(direction)s (double line)"),
            # The same words as the form's.
            "place": gettext("Pick a free crossing point on the board for your start marker."),
            "place_picked": gettext("Start marker on %(point)s."),
            "build_tap": gettext(
                "Tap a crossing point of your network, then the direction to build in."
            ),
            "build_click": gettext(
                "Click a line touching your network: one or two single lines, or one double line."
            ),
            "picked": gettext("Picked: %(lines)s. Cost so far: %(cost)s of 2."),
            "may_add": gettext("You may add a second line, or build."),
            "pass": gettext("None of your lines can be extended: you pass this turn."),
            "no_line": gettext("Pick one or two lines to build."),
            "no_point": gettext("Pick a crossing point for your start marker."),
        },
        "centre": centre,
        "may_colour": form.may_colour,
        "coloured_left": state.exclusive_left[viewer] if state.exclusive_left else 0,
    }


def _by_line(seconds: dict[int, list[int]]) -> dict[str, list[str]]:
    """Line ids as the script keys them (strings, as its picks are)."""
    return {str(first): [str(line) for line in after] for first, after in seconds.items() if after}


def round_summary(
    game: Game, snapshot: snapshots.Snapshot, table: PageFacts, layer=static_layer
) -> dict | None:
    """The round that ended before this one, for a player who has not moved since."""
    state, viewer = snapshot.state, table.viewer
    events = list(snapshot.round_events)
    if state.is_over or state.round < 2 or not events or events[0]["type"] != rules.ROUND_STARTED:
        return None
    if any(e["type"] in rules.MOVE_EVENTS and e["seat"] == viewer for e in events):
        return None
    ended = snapshots.at(game, events[0]["seq"] - 1).state
    scoring = ended.last_scoring
    names = [row.name for row in table.seats]
    everyone = [city for hand in scoring["hands"] for city in hand]
    svg = board_svg(ended, viewer, marked_cities=everyone, seat_names=names)
    return {
        "round": scoring["round"],
        "next_round": state.round,
        "closer": [names[p] for p in scoring["connected"]],
        "rows": [
            {
                "name": names[p],
                "hand": city_names(scoring["hands"][p]),
                "loss": scoring["losses"][p],
                "colour": seat_colour(p),
                "number": p + 1,
            }
            for p in range(len(names))
        ],
        # Its own title id: the live board below has "board-title".
        "svg": render_svg(svg, layer, title_id="summary-board-title"),
        "key": f"railmail:summary:{game.pk}:{scoring['round']}",
    }
