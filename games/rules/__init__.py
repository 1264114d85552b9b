"""The rules of TransAmerica and TransEuropa: pure Python, no I/O, no clock, no randomness.

A game is a log of events. ``replay(events)`` rebuilds its state, checking each event;
``decide(state, seat, move)`` turns a legal move into the events it causes, or raises
``IllegalMove`` naming the rule and the line or point (``play`` gives the state after
them too). The names below are the engine's public API; the bots, which play by these
rules, live beside it in ``games.bots`` and use nothing else.
"""

from .boards import BOARD_NAMES, COLOURS, Board, City, get_board
from .consent import end_early, take_back
from .dealing import MAX_SEATS, MIN_SEATS, deal, round_started
from .errors import IllegalMove, InvalidEvent
from .events import (
    AROUND_PLAY_EVENTS,
    CLOCK_EVENTS,
    CLOCK_PAUSED,
    CLOCK_RESUMED,
    CONSENT_EVENTS,
    END_AGREED,
    ENDED_BY_AGREEMENT,
    GAME_CREATED,
    GAME_ENDED,
    MOVE_EVENTS,
    NUDGED,
    PLAY_EVENTS,
    ROUND_SCORED,
    ROUND_STARTED,
    SEAT_TAKEN_BACK,
    SEAT_TAKEN_BY_BOT,
    START_PLACED,
    STARTS_NO_TURN,
    TIME_GIVEN,
    TRACK_BUILT,
    TURN_PASSED,
    TURN_TAKEN_BACK,
    TURN_TIMED_OUT,
    moves_since_last_turn,
)
from .graph import (
    INFINITY,
    Built,
    Graph,
    cheapest_paths,
    cost_graph,
    distances,
    first_line_towards,
    reach,
)
from .moves import Build, Line, Move, Pass, PlaceStart, Point, as_line, as_point, format_line
from .network import cities_joined, network
from .options import Options
from .record import FORMAT, InvalidRecord, make_record, read_record, replay_record, seat_names
from .replay import apply, game_created, replay
from .scoring import SteinerTables, missing_cost, scoring_graph
from .state import AWAITING_DEAL, BUILDING, OVER, PLACING, ROUND_OVER, GameState, Track
from .turns import (
    decide,
    legal_line_ids,
    legal_lines,
    legal_second_line_ids,
    legal_start_points,
    may_colour,
    play,
)
from .visibility import hands_visible_to, seat_view

__all__ = [
    "AROUND_PLAY_EVENTS",
    "AWAITING_DEAL",
    "BOARD_NAMES",
    "BUILDING",
    "CLOCK_EVENTS",
    "CLOCK_PAUSED",
    "CLOCK_RESUMED",
    "COLOURS",
    "CONSENT_EVENTS",
    "ENDED_BY_AGREEMENT",
    "END_AGREED",
    "FORMAT",
    "GAME_CREATED",
    "GAME_ENDED",
    "INFINITY",
    "MAX_SEATS",
    "MIN_SEATS",
    "MOVE_EVENTS",
    "NUDGED",
    "OVER",
    "PLACING",
    "PLAY_EVENTS",
    "ROUND_OVER",
    "ROUND_SCORED",
    "ROUND_STARTED",
    "SEAT_TAKEN_BACK",
    "SEAT_TAKEN_BY_BOT",
    "START_PLACED",
    "STARTS_NO_TURN",
    "TIME_GIVEN",
    "TRACK_BUILT",
    "TURN_PASSED",
    "TURN_TAKEN_BACK",
    "TURN_TIMED_OUT",
    "Board",
    "Build",
    "Built",
    "City",
    "GameState",
    "Graph",
    "IllegalMove",
    "InvalidEvent",
    "InvalidRecord",
    "Line",
    "Move",
    "Options",
    "Pass",
    "PlaceStart",
    "Point",
    "SteinerTables",
    "Track",
    "apply",
    "as_line",
    "as_point",
    "cheapest_paths",
    "cities_joined",
    "cost_graph",
    "deal",
    "decide",
    "distances",
    "end_early",
    "first_line_towards",
    "format_line",
    "game_created",
    "get_board",
    "hands_visible_to",
    "legal_line_ids",
    "legal_lines",
    "legal_second_line_ids",
    "legal_start_points",
    "make_record",
    "may_colour",
    "missing_cost",
    "moves_since_last_turn",
    "network",
    "play",
    "reach",
    "read_record",
    "replay",
    "replay_record",
    "round_started",
    "scoring_graph",
    "seat_names",
    "seat_view",
    "take_back",
]
