"""Moves offered to a player to play with one tap or one reply: the strong bot's ideas
for their seat, numbered and said in words.

They are computed from the position alone (the bot sees only the seat's own cities), so
the suggestions of a position are the same whenever they are asked for: the email that
offered them and the reply that picks one agree without storing anything.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext, ngettext

from games import rules
from games.bots import strong_suggestions
from games.words import narration, places
from games.words.city_names import city_name
from helpers.text import and_list

COUNT = 3


@dataclass(frozen=True)
class Suggestion:
    number: int  # 1, 2, 3: what a reply says to pick it
    move: rules.Move
    words: str


def suggestions(state: rules.GameState, position: int) -> list[Suggestion]:
    """Up to three moves for ``position`` (which must be to move), best first."""
    if state.seat_to_move != position or state.phase not in (rules.PLACING, rules.BUILDING):
        return []
    moves = strong_suggestions(state, position, COUNT)
    return [
        Suggestion(number, move, move_words(state, position, move))
        for number, move in enumerate(moves, 1)
    ]


def move_words(state: rules.GameState, position: int, move: rules.Move) -> str:
    """A move in words: "Denver to 1 east of Denver, 1 track, towards Omaha"."""
    board = state.board
    if isinstance(move, rules.PlaceStart):
        index = board.point_index[move.point]
        if index in board.city_at:
            return gettext("Start marker in %(city)s") % {"city": places.point_name(board, index)}
        return gettext("Start marker at %(point)s") % {"point": places.point_name(board, index)}
    if isinstance(move, rules.Pass):
        return gettext("Pass: no line can be built")
    ids = [board.line_id(line) for line in move.lines]
    words = [
        narration.coloured(places.line_name(board, line))
        if n in move.exclusive
        else places.line_name(board, line)
        for n, line in enumerate(ids)
    ]
    towards = _towards(state, position, ids)
    facts = {
        "lines": and_list(words),
        "count": len(ids),
        "city": city_name(towards) if towards else "",
    }
    if towards:
        return (
            ngettext(
                "%(lines)s, 1 track, towards %(city)s",
                "%(lines)s, %(count)s tracks, towards %(city)s",
                len(ids),
            )
            % facts
        )
    return ngettext("%(lines)s, 1 track", "%(lines)s, %(count)s tracks", len(ids)) % facts


def _towards(state: rules.GameState, position: int, ids: list[int]) -> str:
    """The player's own city, not yet joined, nearest to where the move ends."""
    board = state.board
    after = dict(state.built)
    for line in ids:
        after[line] = rules.Track(position, False)
    end = board.lines[ids[-1]][1]
    graph = rules.cost_graph(board, after, position)
    distance = rules.distances(graph, [end])
    start = state.start_point(position)
    joined = rules.reach(board, after, position, [start]) if start is not None else set()
    waiting = [
        (distance[board.city_point(name)], name)
        for name in state.hands[position]
        if board.city_point(name) not in joined
    ]
    return min(waiting)[1] if waiting else ""
