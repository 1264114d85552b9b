"""The one write path for games: every change to a game's history goes through here.

Callers write ``services.submit_move`` and the like; topic modules sit behind this door.
A move takes no lock: its claim is the conditional UPDATE of the game's row on the version
the player saw (``append_to_log``). Every other write that appends events locks the game's
row first (``event_log.lock_game``), as it reads more than the snapshot.
"""

from games.services.clock import (
    VacationError,
    clock_paused,
    end_vacation,
    pause_clock,
    record_timeout,
    start_vacation,
)
from games.services.event_log import GameMovedOn, append_events, load_state
from games.services.moves import MoveRequest, make_move, submit_move
from games.services.new_games import (
    GameSettings,
    SeatSpec,
    accept_seat,
    create_game,
    open_game,
    start_game,
)
from games.services.seats import (
    claim_seats,
    record_browser_time_zone,
    record_seen,
    remind_invited,
    replace_invited,
    send_fresh_link,
    take_seat_back,
)

__all__ = [
    "GameMovedOn",
    "GameSettings",
    "MoveRequest",
    "SeatSpec",
    "VacationError",
    "accept_seat",
    "append_events",
    "claim_seats",
    "clock_paused",
    "create_game",
    "end_vacation",
    "load_state",
    "make_move",
    "open_game",
    "pause_clock",
    "record_browser_time_zone",
    "record_seen",
    "record_timeout",
    "remind_invited",
    "replace_invited",
    "send_fresh_link",
    "start_game",
    "start_vacation",
    "submit_move",
    "take_seat_back",
]
