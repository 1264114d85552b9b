"""The type of every event in a game's log, named once.

The engine checks the events of play and lets the service's events around play pass.
The values are stored in logs and public game records, so they never change.
"""

from collections.abc import Sequence

# Play: the engine writes these and checks each one on replay.
GAME_CREATED = "game_created"
ROUND_STARTED = "round_started"
START_PLACED = "start_placed"
TRACK_BUILT = "track_built"
TURN_PASSED = "turn_passed"
ROUND_SCORED = "round_scored"
GAME_ENDED = "game_ended"

# Around play: recorded by the service (games.services); the engine lets them pass.
TURN_TIMED_OUT = "turn_timed_out"
SEAT_TAKEN_BY_BOT = "seat_taken_by_bot"
SEAT_TAKEN_BACK = "seat_taken_back"
CLOCK_PAUSED = "clock_paused"
CLOCK_RESUMED = "clock_resumed"
QUIET_HOURS_SET = "quiet_hours_set"

# Consent at the table: the engine applies a take-back and lets the others pass.
TURN_TAKEN_BACK = "turn_taken_back"
TIME_GIVEN = "time_given"
END_AGREED = "end_agreed"
NUDGED = "nudged"
# Why a game ended early (``game_ended``'s "reason"; a game that ends by its score has none).
ENDED_BY_AGREEMENT = "agreed"

MOVE_EVENTS = (START_PLACED, TRACK_BUILT, TURN_PASSED)
PLAY_EVENTS = (
    GAME_CREATED,
    ROUND_STARTED,
    *MOVE_EVENTS,
    ROUND_SCORED,
    GAME_ENDED,
    TURN_TAKEN_BACK,
)
CLOCK_EVENTS = (CLOCK_PAUSED, CLOCK_RESUMED)
CONSENT_EVENTS = (TIME_GIVEN, END_AGREED, NUDGED)
# A seat changing hands (games.services.substitutes).
SEAT_LEFT = "seat_left"
SUBSTITUTE_BACKED = "substitute_backed"
SEAT_HANDED_OVER = "seat_handed_over"
SEAT_EVENTS = (SEAT_LEFT, SUBSTITUTE_BACKED, SEAT_HANDED_OVER)

# Events after which the seat to move still has the turn it had: its deadline runs on.
STARTS_NO_TURN = (*CLOCK_EVENTS, *CONSENT_EVENTS, *SEAT_EVENTS, QUIET_HOURS_SET)
AROUND_PLAY_EVENTS = (
    TURN_TIMED_OUT,
    SEAT_TAKEN_BY_BOT,
    SEAT_TAKEN_BACK,
    *CLOCK_EVENTS,
    *CONSENT_EVENTS,
    *SEAT_EVENTS,
    QUIET_HOURS_SET,
)


def moves_since_last_turn(events: Sequence[dict], seat: int) -> list[dict]:
    """The moves the other seats made since ``seat`` last moved in this round, less any
    taken back: the one walk shared by the board, the move log and the emails."""
    moves = []
    taken_back = 0
    for event in reversed(events):
        kind = event["type"]
        if kind == TURN_TAKEN_BACK:
            taken_back += 1
            continue
        if kind in MOVE_EVENTS and taken_back:
            taken_back -= 1
            continue
        if kind == ROUND_STARTED or (kind in MOVE_EVENTS and event["seat"] == seat):
            break
        if kind in MOVE_EVENTS:
            moves.append(event)
    return moves[::-1]
