"""The one write path for games: every change to a game's history goes through here.

One door, topic modules behind it (callers write ``services.submit_move``):

- ``moves``: a player's move. Decided before its transaction, which takes no lock: one
  conditional UPDATE of the game's row on the version the player saw claims it (on
  PostgreSQL usually one statement with the events and outbox rows: helpers.claims).
- ``event_log``: appending events, the step every write ends in; ``load_state``.
- ``new_games``: creating a game, its settings and seats, accepting, the first deal.
- ``seats``: invitations, fresh links, accounts claiming seats, what a player saw.
- ``clock``: the game clock: deadlines, timeouts, and vacations that pause it.
- ``autoplay``: bots at the table; ``talk``: table talk; ``record_import``: a game record
  brought back in; ``invitations``: who has played with whom; ``random_deal``: the deal.

Which write locks what:

- a move (``submit_move``, and the bots' and timeouts' moves through it) takes no lock: its
  claim is the conditional UPDATE of the game's row inside ``append_to_log``;
- every other change that appends events (a new game's deal, accepting a seat, handing an
  invited seat on, a timeout, taking a seat back, a vacation's paused or resumed clock,
  importing a record) locks the game's row first (``event_log.lock_game``), as it reads
  more than the snapshot, and appends through ``append_to_log`` too;
- writes that append no event touch only their own rows: a seat (a fresh link, what a
  player saw, table talk's rate) or an account (a vacation's days).
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
from games.services.moves import submit_move
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
    "SeatSpec",
    "VacationError",
    "accept_seat",
    "append_events",
    "claim_seats",
    "clock_paused",
    "create_game",
    "end_vacation",
    "load_state",
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
