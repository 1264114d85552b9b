"""The easy bot: an opponent for a beginner.

``easy_move`` starts on the first city of its hand (in colour order) and builds a single
line a turn along a cheapest path to its nearest city not yet joined: it plays sensibly
but at half the pace, so a player learning the game can win. It never passes while a
line can be built.
"""

from __future__ import annotations

from games import rules

from .greedy import next_line_towards_city


def easy_move(state: rules.GameState, seat: int) -> rules.Move:
    """One line a turn towards the nearest city; the start on the hand's first free city."""
    board = state.board
    if state.phase == rules.PLACING:
        taken = set(state.starts)
        for name in state.hands[seat]:
            point = board.city_point(name)
            if point not in taken:
                return rules.PlaceStart(board.points[point])
        return rules.PlaceStart(rules.legal_start_points(state)[0])
    line = next_line_towards_city(state, seat)
    if line is not None:
        return rules.Build((board.line_points(line),))
    legal = rules.legal_lines(state, seat)
    return rules.Build((legal[0],)) if legal else rules.Pass()
