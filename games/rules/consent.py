"""Consent at the table, as far as the rules go: taking back a turn, ending by agreement.

A move that ended a round cannot be taken back, since the next round is already dealt.
Who must agree is the service's question: it knows which seats are people.
"""

from __future__ import annotations

from .errors import IllegalMove
from .events import ENDED_BY_AGREEMENT, GAME_ENDED, START_PLACED, TRACK_BUILT, TURN_TAKEN_BACK
from .moves import as_line
from .state import BUILDING, OVER, PLACING, GameState
from .turns import game_result


def take_back(state: GameState, seat: int) -> tuple[list[dict], GameState]:
    """The events of ``seat`` taking back its last turn, and the state after them."""
    scratch = state.copy()
    take_back_in_place(scratch, seat)
    scratch.version = state.version + 1
    return [{"type": TURN_TAKEN_BACK, "seat": seat}], scratch


def take_back_in_place(state: GameState, seat: int) -> None:
    """Undo ``seat``'s last move (mutates ``state``), or raise IllegalMove."""
    if not state.options.take_backs:
        raise IllegalMove("no_take_backs", "this game does not allow taking back a turn")
    if state.phase == OVER:
        raise IllegalMove("game_over", "the game is over")
    move = state.last_move
    if state.phase not in (PLACING, BUILDING) or move is None:
        if state.round > 1 and state.turn == 0:
            raise IllegalMove(
                "round_ended", "a move that ended a round cannot be taken back", seat=seat
            )
        raise IllegalMove("nothing_to_take_back", "there is no turn to take back", seat=seat)
    if move["seat"] != seat:
        raise IllegalMove(
            "not_your_last_move",
            "only the player who moved last may take their turn back, and only until the "
            "next player acts",
            seat=move["seat"],
        )
    if move["type"] == START_PLACED:
        state.starts[seat] = None
        state.phase = PLACING
    elif move["type"] == TRACK_BUILT:
        board = state.board
        for index, line in enumerate(move["lines"]):
            line_id = board.line_id(as_line(line))
            del state.built[line_id]
            if index in move["exclusive"]:
                state.exclusive_left[seat] += 1
            else:
                state.supply_left += 1
    state.turn -= 1
    state.last_move = None


def end_early(state: GameState) -> tuple[list[dict], GameState]:
    """The ``game_ended`` event of a game its players agreed to end now, and the state after."""
    scratch = state.copy()
    end_in_place(scratch)
    scratch.result_recorded = True
    scratch.version = state.version + 1
    event = {
        "type": GAME_ENDED,
        "reason": ENDED_BY_AGREEMENT,
        "scores": list(scratch.scores),
        "winners": list(scratch.winners),
    }
    return [event], scratch


def end_in_place(state: GameState) -> None:
    """End the game by agreement (mutates ``state``): the running round is dropped, the
    scores stand as after the last scored round, ties share the win."""
    if state.phase == OVER:
        raise IllegalMove("game_over", "the game is over")
    if state.round == 0:
        raise IllegalMove("not_started", "the game has not started")
    state.phase = OVER
    state.winners = game_result(state.scores)
    state.last_move = None
