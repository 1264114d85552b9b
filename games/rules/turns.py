"""Turns: what a seat may do now, and the events a legal move causes.

The same functions check a move when a player makes it (``decide``) and when a stored
event is replayed (``replay.apply``), so a log can only ever hold legal play.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from copy import deepcopy

from .errors import IllegalMove
from .events import GAME_ENDED, ROUND_SCORED, START_PLACED, TRACK_BUILT, TURN_PASSED
from .moves import Build, Line, Move, Pass, PlaceStart, Point, format_line, format_point
from .network import coloured_at, joined_seats, network
from .scoring import missing_cost
from .state import AWAITING_DEAL, BUILDING, OVER, PLACING, ROUND_OVER, GameState, Track

MAX_COLOURED_AT_POINT = 2


def check_turn(state: GameState, seat: int) -> None:
    """Refuse a move from a seat that is not to move now."""
    if not 0 <= seat < state.seat_count:
        raise IllegalMove("no_such_seat", f"there is no seat {seat} in this game", seat=seat)
    if state.phase == OVER:
        raise IllegalMove("game_over", "the game is over")
    if state.phase in (AWAITING_DEAL, ROUND_OVER):
        raise IllegalMove("round_over", "the round is over and the next one is not dealt yet")
    if seat != state.seat_to_move:
        raise IllegalMove(
            "not_your_turn",
            f"it is not your turn: seat {state.seat_to_move} moves",
            seat=state.seat_to_move,
        )


def place_start(state: GameState, seat: int, point: Point) -> None:
    """Put ``seat``'s start marker on ``point`` (mutates ``state``)."""
    check_turn(state, seat)
    if state.phase != PLACING:
        raise IllegalMove("start_already_placed", "your start marker is already on the board")
    index = state.board.point_index.get(point)
    if index is None:
        raise IllegalMove(
            "not_a_point",
            f"{format_point(point)} is not a crossing point on this board",
            point=point,
        )
    if index in state.starts:
        raise IllegalMove(
            "point_taken",
            f"the point {format_point(point)} already holds a start marker",
            point=point,
        )
    state.starts[seat] = index
    state.turn += 1
    if state.turn == state.seat_count:
        state.phase = BUILDING


def build_lines(
    state: GameState, seat: int, lines: Sequence[Line], exclusive: Iterable[int] = ()
) -> None:
    """Build one turn's lines for ``seat`` in order (mutates ``state``).

    Raises IllegalMove, leaving ``state`` half-changed: callers work on a copy.
    """
    check_turn(state, seat)
    if state.phase == PLACING:
        raise IllegalMove("start_marker_first", "place your start marker before building track")
    board = state.board
    exclusive = set(exclusive)
    if not lines:
        raise IllegalMove("no_line", "build at least one line on your turn")
    if len(lines) > 2:
        raise IllegalMove("too_many_lines", "a turn builds one or two lines, not more")
    ids = []
    for line in lines:
        line_id = board.line_id(line)
        if line_id is None:
            raise IllegalMove(
                "not_a_line",
                f"{format_line(line)} is not a line on this board: "
                "a line joins two neighbouring crossing points",
                line=line,
            )
        if line_id in ids:
            raise IllegalMove(
                "same_line_twice", f"the line {format_line(line)} is given twice", line=line
            )
        ids.append(line_id)
    if len(ids) == 2:
        for line, line_id in zip(lines, ids, strict=True):
            if board.lines[line_id][2] == 2:
                raise IllegalMove(
                    "double_line_alone",
                    f"the line {format_line(line)} is a double line (river, mountain or sea): "
                    "it is the only line of its turn",
                    line=line,
                )
    if exclusive:
        allowed = state.options.exclusive_tracks
        if not allowed:
            raise IllegalMove("no_coloured_track", "this game is played without coloured track")
        if not exclusive <= set(range(len(ids))):
            raise IllegalMove("bad_coloured_index", "coloured track names a line not built")
        if len(exclusive) > state.exclusive_left[seat]:
            raise IllegalMove(
                "coloured_track_used_up",
                f"you have {state.exclusive_left[seat]} of your {allowed} coloured tracks "
                "left this round",
                left=state.exclusive_left[seat],
                allowed=allowed,
            )

    for i, (line, line_id) in enumerate(zip(lines, ids, strict=True)):
        if i == 1 and state.phase == ROUND_OVER:
            # The first line ended the round. Only a flat first line that joined nobody's
            # cities but an opponent's lets the turn go on (the rulebook's exception).
            if seat in state.joined:
                raise IllegalMove(
                    "round_ended",
                    f"your first line {format_line(lines[0])} joined your cities and ended "
                    "the round: it is the only line of your turn",
                    line=lines[0],
                )
            if state.supply_left == 0:
                raise IllegalMove(
                    "supply_used_up",
                    f"your first line {format_line(lines[0])} used the last track of the "
                    "supply, which ends the round",
                    line=lines[0],
                )
        if line_id in state.built:
            raise IllegalMove(
                "line_taken", f"the line {format_line(line)} is already built", line=line
            )
        a, b, _cost = board.lines[line_id]
        reach = network(state, seat)
        if a not in reach and b not in reach:
            raise IllegalMove(
                "not_touching_network",
                f"the line {format_line(line)} does not touch your network",
                line=line,
            )
        coloured = i in exclusive
        if coloured:
            for point in (a, b):
                if coloured_at(state, point) >= MAX_COLOURED_AT_POINT:
                    raise IllegalMove(
                        "coloured_crowded",
                        f"two coloured tracks already touch {format_point(board.points[point])}",
                        point=board.points[point],
                    )
            state.exclusive_left[seat] -= 1
        else:
            state.supply_left -= 1
        state.built[line_id] = Track(seat, coloured)
        joined = joined_seats(state)
        if joined or state.supply_left == 0:
            state.phase = ROUND_OVER
            state.joined = joined
    if state.phase == BUILDING:
        state.turn += 1


def pass_turn(state: GameState, seat: int) -> None:
    """Let a seat with no legal line at all give up its turn (mutates ``state``)."""
    check_turn(state, seat)
    if state.phase != BUILDING or legal_line_ids(state, seat):
        raise IllegalMove("must_build", "you must build at least one line on your turn")
    state.turn += 1


def last_move_of(event: dict) -> dict:
    """What ``GameState.last_move`` keeps of a move event: no seq, no marks."""
    move = {"type": event["type"], "seat": event["seat"]}
    if event["type"] == START_PLACED:
        move["point"] = list(event["point"])
    elif event["type"] == TRACK_BUILT:
        move["lines"] = [[list(p), list(q)] for p, q in event["lines"]]
        move["exclusive"] = sorted(event.get("exclusive") or [])
    return move


def score_round(state: GameState) -> dict:
    """The ``round_scored`` event for a round that has just ended."""
    joined = joined_seats(state)
    losses = [
        0 if seat in joined else missing_cost(state, seat) for seat in range(state.seat_count)
    ]
    scores = [score - loss for score, loss in zip(state.scores, losses, strict=True)]
    mark = state.game_ends_at_score
    if state.round == state.board.barrier_moves_after_round and min(scores) >= 4:
        mark = min(scores) - 3
    return {
        "type": ROUND_SCORED,
        "round": state.round,
        "connected": joined,
        "losses": losses,
        "scores": scores,
        "game_ends_at_score": mark,
    }


def game_result(scores: Sequence[int]) -> list[int]:
    """The winners: every seat with the most points (tied seats share the win)."""
    best = max(scores)
    return [seat for seat, score in enumerate(scores) if score == best]


def decide(state: GameState, seat: int, move: Move) -> list[dict]:
    """The events that ``seat``'s ``move`` causes, or IllegalMove. ``state`` is not changed."""
    return play(state, seat, move)[0]


def play(state: GameState, seat: int, move: Move) -> tuple[list[dict], GameState]:
    """``decide``, and the state a replay of its events gives, without checking them again."""
    scratch = state.copy()
    if isinstance(move, PlaceStart):
        place_start(scratch, seat, move.point)
        events = [{"type": START_PLACED, "seat": seat, "point": list(move.point)}]
    elif isinstance(move, Pass):
        pass_turn(scratch, seat)
        events = [{"type": TURN_PASSED, "seat": seat}]
    elif isinstance(move, Build):
        build_lines(scratch, seat, move.lines, move.exclusive)
        event = {
            "type": TRACK_BUILT,
            "seat": seat,
            "lines": [[list(p), list(q)] for p, q in move.lines],
        }
        if move.exclusive:
            event["exclusive"] = sorted(move.exclusive)
        events = [event]
        if scratch.phase == ROUND_OVER:
            scored = score_round(scratch)
            events.append(scored)
            # A copy: the scoring is an event too, and the state must not share its lists.
            take_scoring(scratch, deepcopy(scored))
            if scratch.phase == OVER:
                events.append(
                    {"type": GAME_ENDED, "scores": scored["scores"], "winners": scratch.winners}
                )
                scratch.result_recorded = True
    else:
        raise TypeError(f"not a move: {move!r}")
    scratch.last_move = last_move_of(events[0])
    scratch.version = state.version + len(events)
    return events, scratch


def take_scoring(state: GameState, scored: dict) -> None:
    """Record ``score_round``'s event in ``state`` (mutates it)."""
    state.scores = list(scored["scores"])
    state.game_ends_at_score = scored["game_ends_at_score"]
    state.last_scoring = {**scored, "hands": [list(hand) for hand in state.hands]}
    if any(score <= state.game_ends_at_score for score in state.scores):
        state.phase = OVER
        state.winners = game_result(state.scores)
    else:
        state.phase = AWAITING_DEAL


def legal_start_points(state: GameState) -> list[Point]:
    """Crossing points free for a start marker."""
    taken = set(state.starts)
    return [point for i, point in enumerate(state.board.points) if i not in taken]


def legal_line_ids(state: GameState, seat: int) -> list[int]:
    """The lines ``seat`` may build first in a turn: free lines touching its network."""
    return _free_lines(state, network(state, seat))


def legal_second_line_ids(
    state: GameState, seat: int, first: int, coloured: bool | None = None
) -> list[int]:
    """The lines ``seat`` may build after the line ``first`` in the same turn.

    Empty when ``first`` is not legal, is a double line or ends the round. ``coloured``:
    whether ``first`` is coloured (it leaves the supply alone); None: either.
    """
    board = state.board
    if coloured is None:
        ways = [False, True] if may_colour(state, seat, board.line_points(first)) else [False]
        found: set[int] = set()
        for way in ways:
            found.update(legal_second_line_ids(state, seat, first, way))
        return sorted(found)
    if board.lines[first][2] == 2:
        return []
    scratch = state.copy()
    try:
        build_lines(scratch, seat, [board.line_points(first)], [0] if coloured else [])
    except IllegalMove:
        return []
    if scratch.phase == ROUND_OVER and (seat in scratch.joined or scratch.supply_left == 0):
        return []
    return [line for line in legal_line_ids(scratch, seat) if board.lines[line][2] == 1]


def legal_lines(state: GameState, seat: int) -> list[Line]:
    """``legal_line_ids`` as lines (pairs of points)."""
    board = state.board
    return [board.line_points(line_id) for line_id in legal_line_ids(state, seat)]


def _free_lines(state: GameState, points: Iterable[int]) -> list[int]:
    """Free lines touching any of ``points``, by line id in order."""
    built = state.built
    point_lines = state.board.point_lines
    return sorted({line for point in points for line in point_lines[point] if line not in built})


def may_colour(state: GameState, seat: int, line: Line) -> bool:
    """Whether ``seat`` could build ``line`` with a coloured track (ignoring reach)."""
    line_id = state.board.line_id(line)
    if line_id is None or not state.options.exclusive_tracks or state.exclusive_left[seat] <= 0:
        return False
    a, b, _cost = state.board.lines[line_id]
    return all(coloured_at(state, p) < MAX_COLOURED_AT_POINT for p in (a, b))
