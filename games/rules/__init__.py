"""The rules of TransAmerica and TransEuropa: pure Python, no I/O, no clock, no randomness.

A game is a log of events. ``replay(events)`` rebuilds its state, checking each event;
``decide(state, seat, move)`` turns a legal move into the events it causes, or raises
``IllegalMove`` naming the rule and the line or point.
"""

from .boards import BOARD_NAMES, COLOURS, Board, City, get_board
from .bots import BOTS, greedy_move, strong_move
from .dealing import MAX_SEATS, MIN_SEATS, deal, round_started
from .errors import IllegalMove, InvalidEvent
from .events import (
    AROUND_PLAY_EVENTS,
    CLOCK_EVENTS,
    CLOCK_PAUSED,
    CLOCK_RESUMED,
    GAME_CREATED,
    GAME_ENDED,
    MOVE_EVENTS,
    PLAY_EVENTS,
    ROUND_SCORED,
    ROUND_STARTED,
    SEAT_TAKEN_BACK,
    SEAT_TAKEN_BY_BOT,
    START_PLACED,
    TRACK_BUILT,
    TURN_PASSED,
    TURN_TIMED_OUT,
)
from .moves import Build, Line, Move, Pass, PlaceStart, Point, as_line, as_point, format_line
from .network import cities_joined, network
from .options import Options
from .record import FORMAT, InvalidRecord, make_record, read_record, replay_record
from .replay import apply, game_created, replay
from .scoring import missing_cost
from .simulate import simulate
from .state import AWAITING_DEAL, BUILDING, OVER, PLACING, ROUND_OVER, GameState, Track
from .turns import (
    decide,
    legal_line_ids,
    legal_lines,
    legal_second_line_ids,
    legal_start_points,
    may_colour,
)
from .visibility import hands_visible_to, seat_view

__all__ = [
    "AROUND_PLAY_EVENTS",
    "CLOCK_EVENTS",
    "CLOCK_PAUSED",
    "CLOCK_RESUMED",
    "GAME_CREATED",
    "GAME_ENDED",
    "MOVE_EVENTS",
    "PLAY_EVENTS",
    "ROUND_SCORED",
    "ROUND_STARTED",
    "SEAT_TAKEN_BACK",
    "SEAT_TAKEN_BY_BOT",
    "START_PLACED",
    "TRACK_BUILT",
    "TURN_PASSED",
    "TURN_TIMED_OUT",
    "AWAITING_DEAL",
    "BOTS",
    "BOARD_NAMES",
    "BUILDING",
    "COLOURS",
    "FORMAT",
    "MAX_SEATS",
    "MIN_SEATS",
    "OVER",
    "PLACING",
    "ROUND_OVER",
    "Board",
    "Build",
    "City",
    "GameState",
    "IllegalMove",
    "InvalidEvent",
    "InvalidRecord",
    "Line",
    "Move",
    "Options",
    "Pass",
    "PlaceStart",
    "Point",
    "Track",
    "apply",
    "as_line",
    "as_point",
    "cities_joined",
    "deal",
    "decide",
    "format_line",
    "game_created",
    "get_board",
    "greedy_move",
    "hands_visible_to",
    "legal_line_ids",
    "legal_lines",
    "legal_second_line_ids",
    "legal_start_points",
    "make_record",
    "may_colour",
    "missing_cost",
    "network",
    "read_record",
    "replay",
    "replay_record",
    "round_started",
    "seat_view",
    "simulate",
    "strong_move",
]
