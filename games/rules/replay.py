"""Rebuilding a game's state from its event log, checking every event on the way."""

from __future__ import annotations

from collections.abc import Iterable

from .boards import COLOURS, get_board
from .consent import end_in_place, take_back_in_place
from .dealing import check_hands, check_seat_count
from .errors import IllegalMove, InvalidEvent
from .events import (
    ENDED_BY_AGREEMENT,
    GAME_CREATED,
    GAME_ENDED,
    ROUND_SCORED,
    ROUND_STARTED,
    START_PLACED,
    TRACK_BUILT,
    TURN_PASSED,
    TURN_TAKEN_BACK,
)
from .moves import as_line, as_point
from .options import Options
from .state import AWAITING_DEAL, OVER, PLACING, ROUND_OVER, GameState
from .turns import build_lines, last_move_of, pass_turn, place_start, score_round, take_scoring

# Events around play, and unknown types, pass: the record format asks readers to ignore them.


def game_created(board: str, seats: int, options: Options | None = None) -> dict:
    """The first event of every game."""
    get_board(board)
    check_seat_count(seats)
    return {
        "type": GAME_CREATED,
        "board": board,
        "seats": seats,
        "options": (options or Options()).to_dict(),
    }


def new_game(event: dict) -> GameState:
    """The state right after a ``game_created`` event."""
    board = get_board(event["board"])
    seats = event["seats"]
    check_seat_count(seats)
    return GameState(
        board=board,
        options=Options.from_dict(event.get("options")),
        seat_count=seats,
        scores=[board.starting_score] * seats,
        game_ends_at_score=board.game_ends_at_score,
    )


def replay(events: Iterable[dict]) -> GameState:
    """The state after ``events``; raises InvalidEvent at the first one that cannot follow."""
    state: GameState | None = None
    for position, event in enumerate(events, start=1):
        if state is None:
            state = _first(event, position)
        else:
            _apply_in_place(state, event, position)
    if state is None:
        raise InvalidEvent(1, "a game's log starts with a game_created event")
    return state


def apply(state: GameState, event: dict) -> GameState:
    """The state after one more event; ``state`` itself is not changed."""
    new = state.copy()
    _apply_in_place(new, event, state.version + 1)
    return new


def _first(event: dict, position: int) -> GameState:
    seq = event.get("seq", position) if isinstance(event, dict) else position
    if not isinstance(event, dict) or event.get("type") != GAME_CREATED:
        raise InvalidEvent(seq, "a game's log starts with a game_created event")
    try:
        state = new_game(event)
    except (KeyError, TypeError, ValueError) as error:
        raise InvalidEvent(seq, f"bad game_created event: {error}") from None
    state.version = seq if "seq" in event else 1
    return state


def _apply_in_place(state: GameState, event: dict, position: int) -> None:
    if not isinstance(event, dict) or not isinstance(event.get("type"), str):
        raise InvalidEvent(position, "an event is an object with a type")
    seq = event.get("seq")
    if seq is not None and seq != state.version + 1:
        raise InvalidEvent(seq, f"expected event {state.version + 1} next, not {seq}")
    seq = state.version + 1
    handler = _HANDLERS.get(event["type"])
    if handler is not None:
        try:
            handler(state, event)
        except IllegalMove as error:
            raise InvalidEvent(seq, f"{event['type']}: {error.message}") from None
        except (KeyError, TypeError, ValueError) as error:
            raise InvalidEvent(seq, f"malformed {event['type']} event: {error}") from None
    state.version = seq


def _seat(state: GameState, event: dict) -> int:
    seat = event["seat"]
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise ValueError(f"seat must be a number, not {seat!r}")
    return seat


def _round_started(state: GameState, event: dict) -> None:
    if state.phase != AWAITING_DEAL:
        raise IllegalMove("not_awaiting_deal", "a round can start only after the last one scored")
    if event["round"] != state.round + 1:
        raise IllegalMove("bad_round", f"the next round is round {state.round + 1}")
    first = state.round % state.seat_count
    if event["first_seat"] != first:
        raise IllegalMove("bad_first_seat", f"seat {first} starts round {state.round + 1}")
    hands = check_hands(state, event["hands"])
    board = state.board
    # Keep each hand in colour order, whatever order the record lists it in.
    order = {colour: i for i, colour in enumerate(COLOURS)}
    state.hands = [
        tuple(sorted(hand, key=lambda name: order[board.city_by_name[name].colour]))
        for hand in hands
    ]
    state.round += 1
    state.first_seat = first
    state.phase = PLACING
    state.turn = 0
    state.starts = [None] * state.seat_count
    state.built = {}
    state.supply_left = board.tracks_in_supply
    state.exclusive_left = [state.options.exclusive_tracks] * state.seat_count
    state.joined = []
    state.last_move = None


def _start_placed(state: GameState, event: dict) -> None:
    place_start(state, _seat(state, event), as_point(event["point"]))
    state.last_move = last_move_of(event)


def _track_built(state: GameState, event: dict) -> None:
    lines = [as_line(line) for line in event["lines"]]
    build_lines(state, _seat(state, event), lines, event.get("exclusive") or ())
    state.last_move = last_move_of(event)


def _turn_passed(state: GameState, event: dict) -> None:
    pass_turn(state, _seat(state, event))
    state.last_move = last_move_of(event)


def _turn_taken_back(state: GameState, event: dict) -> None:
    take_back_in_place(state, _seat(state, event))


def _round_scored(state: GameState, event: dict) -> None:
    if state.phase != ROUND_OVER:
        raise IllegalMove("round_not_over", "the round has not ended")
    expected = score_round(state)
    for key in ("round", "connected", "losses", "scores", "game_ends_at_score"):
        if event[key] != expected[key]:
            raise IllegalMove("wrong_scoring", f"{key} should be {expected[key]}, not {event[key]}")
    take_scoring(state, expected)


def _game_ended(state: GameState, event: dict) -> None:
    # The format leaves its contents open; the scores and winners, if given, must agree.
    if state.result_recorded:
        raise IllegalMove("game_already_ended", "the game has already ended")
    if event.get("reason") == ENDED_BY_AGREEMENT:
        end_in_place(state)  # its players agreed to end it: no score need reach the mark
    elif state.phase != OVER or state.last_scoring is None:
        raise IllegalMove("game_not_over", "no score has reached the game-end mark")
    if "scores" in event and event["scores"] != state.scores:
        raise IllegalMove("wrong_result", f"the final scores are {state.scores}")
    if "winners" in event and event["winners"] != state.winners:
        raise IllegalMove("wrong_result", f"the winners are seats {state.winners}")
    state.result_recorded = True


def _game_created_again(state: GameState, event: dict) -> None:
    raise IllegalMove("already_created", "the game was already created")


_HANDLERS = {
    GAME_CREATED: _game_created_again,
    ROUND_STARTED: _round_started,
    START_PLACED: _start_placed,
    TRACK_BUILT: _track_built,
    TURN_PASSED: _turn_passed,
    ROUND_SCORED: _round_scored,
    GAME_ENDED: _game_ended,
    TURN_TAKEN_BACK: _turn_taken_back,
}
