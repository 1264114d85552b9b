"""The type of every event in a game's log, named once.

The engine writes and checks the events of play; the service records what happens around
play (the clock, timeouts, bots taking a seat) in the same log, and the engine lets those
pass. The values are what the log and the public game record (``pbem-game-record/1``)
hold: they never change. ``moves_since_last_turn`` is the one walk back over a round's
events that the board, the move log and the emails share.
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
# A seat's quiet hours and zone, from then on (the clock does not count quiet hours).
QUIET_HOURS_SET = "quiet_hours_set"

# A seat's turn: one of these each.
MOVE_EVENTS = (START_PLACED, TRACK_BUILT, TURN_PASSED)
PLAY_EVENTS = (GAME_CREATED, ROUND_STARTED, *MOVE_EVENTS, ROUND_SCORED, GAME_ENDED)
# A seat's clock (vacations): these start no turn.
CLOCK_EVENTS = (CLOCK_PAUSED, CLOCK_RESUMED)
AROUND_PLAY_EVENTS = (
    TURN_TIMED_OUT,
    SEAT_TAKEN_BY_BOT,
    SEAT_TAKEN_BACK,
    *CLOCK_EVENTS,
    QUIET_HOURS_SET,
)
# Events that start no turn: a seat's clock, its quiet hours.
NOT_A_TURN = (*CLOCK_EVENTS, QUIET_HOURS_SET)


def moves_since_last_turn(events: Sequence[dict], seat: int) -> list[dict]:
    """The moves the other seats made since ``seat`` last moved in this round, in order
    (``events``: the log, from the round's start at least)."""
    moves = []
    for event in reversed(events):
        kind = event["type"]
        if kind == ROUND_STARTED or (kind in MOVE_EVENTS and event["seat"] == seat):
            break
        if kind in MOVE_EVENTS:
            moves.append(event)
    return moves[::-1]
