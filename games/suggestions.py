"""Moves offered to a player to play with one tap or one reply: the strong bot's ideas
for their seat, numbered and said in words.

They are computed from the position alone (the bot sees only the seat's own cities), so
the suggestions of a position are the same whenever they are asked for: the email that
offered them and the reply that picks one agree without storing anything.
"""

from __future__ import annotations

from dataclasses import dataclass

from games import places, rules
from games.bots import strong_suggestions

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
        at = "in" if index in board.city_at else "at"
        return f"Start marker {at} {places.point_name(board, index)}"
    if isinstance(move, rules.Pass):
        return "Pass: no line can be built"
    ids = [board.line_id(line) for line in move.lines]
    words = [
        places.line_name(board, line) + (" (coloured)" if n in move.exclusive else "")
        for n, line in enumerate(ids)
    ]
    count = "1 track" if len(ids) == 1 else f"{len(ids)} tracks"
    towards = _towards(state, position, ids)
    return f"{' and '.join(words)}, {count}" + (f", towards {towards}" if towards else "")


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
