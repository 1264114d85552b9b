"""Moves offered to a player to play with one tap or one reply: the strong bot's three best
different ideas for their seat, numbered and said in words.

Computed from the position alone, so the email that offered them and the reply that picks
one agree without storing anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.translation import gettext, ngettext

from games import rules
from games.bots import strong_suggestions
from games.bots.ideas import Idea
from games.words import narration, places
from games.words.city_names import city_name
from helpers.text import and_list

COUNT = 3


@dataclass(frozen=True)
class Suggestion:
    number: int  # 1, 2, 3: what a reply says to pick it
    move: rules.Move
    words: str


def suggestions(
    state: rules.GameState, position: int, names: Sequence[str] | None = None
) -> list[Suggestion]:
    """Up to three moves for ``position`` (which must be to move), best first. ``names``:
    the seats' names, to say whose track a move builds on."""
    if state.seat_to_move != position or state.phase not in (rules.PLACING, rules.BUILDING):
        return []
    ideas = strong_suggestions(state, position, COUNT)
    return [
        Suggestion(number, idea.move, idea_words(state, idea, names))
        for number, idea in enumerate(ideas, 1)
    ]


def turns(tracks: int) -> int:
    """Turns to build ``tracks`` track points, two a turn."""
    return (tracks + 1) // 2


def far(tracks: int) -> str:
    """A distance in tracks and turns: "3 tracks, 2 turns"."""
    return gettext("%(tracks)s, %(turns)s") % {
        "tracks": ngettext("%(count)s track", "%(count)s tracks", tracks) % {"count": tracks},
        "turns": ngettext("%(count)s turn", "%(count)s turns", turns(tracks))
        % {"count": turns(tracks)},
    }


def idea_words(state: rules.GameState, idea: Idea, names: Sequence[str] | None = None) -> str:
    """A suggestion in words: its lines (so that "move:" and the same words play it by
    reply), then what it does."""
    board = state.board
    move = idea.move
    if isinstance(move, rules.PlaceStart):
        index = board.point_index[move.point]
        if index in board.city_at:
            where = gettext("Start marker in %(city)s") % {"city": places.point_name(board, index)}
        else:
            where = gettext("Start marker at %(point)s") % {
                "point": places.point_name(board, index)
            }
        if not idea.left:
            return where
        return gettext("%(where)s: your cities %(far)s from it") % {
            "where": where,
            "far": far(idea.left),
        }
    if isinstance(move, rules.Pass):
        return gettext("Pass: no line can be built")
    return gettext("%(lines)s, %(what)s") % {
        "lines": lines_words(board, move),
        "what": what_it_does(idea, names),
    }


def move_words(state: rules.GameState, move: rules.Move) -> str:
    """A move in words, as the confirmation of a reply says what was played: its start
    marker, or its lines as the board page names them, joined by "and"."""
    board = state.board
    if isinstance(move, rules.PlaceStart):
        index = board.point_index[move.point]
        if index in board.city_at:
            return gettext("Start marker in %(city)s") % {"city": places.point_name(board, index)}
        return gettext("Start marker at %(point)s") % {"point": places.point_name(board, index)}
    if isinstance(move, rules.Pass):
        return gettext("Pass: no line can be built")
    return lines_words(board, move)


def lines_words(board: rules.Board, move: rules.Build) -> str:
    """A move's lines as the board page names them, joined by "and"."""
    words = []
    for n, line in enumerate(move.lines):
        name = places.line_name(board, board.line_id(line))
        words.append(narration.coloured(name) if n in move.exclusive else name)
    return and_list(words)


def what_it_does(idea: Idea, names: Sequence[str] | None = None) -> str:
    """What a build does: "joins Denver", "two tracks toward Chicago, on Bruno's line
    (Chicago then 3 tracks, 2 turns)", "a double line: the whole turn"."""
    move = idea.move
    city = city_name(idea.heads_for) if idea.heads_for else ""
    if idea.joins:
        what = gettext("joins %(cities)s") % {"cities": and_list(map(city_name, idea.joins))}
    elif len(move.lines) == 1 and idea.cost == 2:
        if city:
            what = gettext("a double line toward %(city)s: the whole turn") % {"city": city}
        else:
            what = gettext("a double line: the whole turn")
    elif len(move.lines) == 1:
        what = (
            gettext("one track toward %(city)s") % {"city": city} if city else gettext("one track")
        )
    else:
        what = (
            gettext("two tracks toward %(city)s") % {"city": city}
            if city
            else gettext("two tracks")
        )
    if idea.on_track_of and names is not None:
        whose = and_list(names[seat] for seat in idea.on_track_of)
        what = ngettext(
            "%(what)s, on %(names)s's line", "%(what)s, on %(names)s's lines", len(idea.on_track_of)
        ) % {"what": what, "names": whose}
    if city and not idea.joins:
        what = gettext("%(what)s (%(city)s then %(far)s)") % {
            "what": what,
            "city": city,
            "far": far(idea.left),
        }
    return what


def missing_cities(state: rules.GameState, position: int) -> list[str]:
    """Each of the seat's cities not yet joined to its network, with how far it is in
    tracks and turns: "Chicago (3 tracks, 2 turns)", nearest first."""
    board = state.board
    start = state.start_point(position)
    if start is None or not state.hands:
        return []
    network = rules.reach(board, state.built, position, [start])
    dist = rules.distances(rules.cost_graph(board, state.built, position), network)
    waiting = sorted(
        (dist[point], name)
        for name in state.hands[position]
        if (point := board.city_point(name)) not in network
    )
    return [
        gettext("%(city)s (%(far)s)") % {"city": city_name(name), "far": far(tracks)}
        for tracks, name in waiting
    ]
