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

# Consent at the table (games.services.consent). A take-back the engine applies: it undoes
# the seat's last move (rules.consent). The others it lets pass: more time for the seat to
# move, a seat agreeing to end the game early (the last agreement is followed by a
# ``game_ended`` with ``"reason": "agreed"``), a reminder sent to the seat to move.
TURN_TAKEN_BACK = "turn_taken_back"
TIME_GIVEN = "time_given"
END_AGREED = "end_agreed"
NUDGED = "nudged"
# Why a game ended early (``game_ended``'s "reason"; a game that ends by its score has none).
ENDED_BY_AGREEMENT = "agreed"

# A seat's turn: one of these each.
MOVE_EVENTS = (START_PLACED, TRACK_BUILT, TURN_PASSED)
PLAY_EVENTS = (
    GAME_CREATED,
    ROUND_STARTED,
    *MOVE_EVENTS,
    ROUND_SCORED,
    GAME_ENDED,
    TURN_TAKEN_BACK,
)
# A seat's clock (vacations): these start no turn.
CLOCK_EVENTS = (CLOCK_PAUSED, CLOCK_RESUMED)
# Consent events that start no turn: the deadline still runs from the turn's start.
CONSENT_EVENTS = (TIME_GIVEN, END_AGREED, NUDGED)
# A seat changing hands (games.services.substitutes): its player left (a bot plays it until
# a substitute takes it), another person backed inviting a substitute for it (when the
# creator has left), or it went to a substitute (with the newcomer's "name").
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
    """The moves the other seats made since ``seat`` last moved in this round, in order
    (``events``: the log, from the round's start at least). A move that was taken back
    is no move."""
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
