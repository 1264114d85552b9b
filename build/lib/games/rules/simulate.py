"""Whole games played by bots: for the ``simulate`` command, tests and benchmarks."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .bots import greedy_move
from .dealing import deal, round_started
from .moves import Move
from .options import Options
from .replay import apply, game_created, new_game
from .state import GameState
from .turns import decide

Bot = Callable[[GameState, int], Move]

# Far more events than any real game (a round is at most ~90 turns): a safety stop.
MAX_EVENTS = 20_000


def simulate(
    board: str,
    players: int,
    rng,
    options: Options | None = None,
    bots: Sequence[Bot] | None = None,
) -> list[dict]:
    """Play a whole game; return its event log (with ``seq``).

    ``rng`` (a ``random.Random``) deals the cities; ``bots`` gives each seat's player
    (the greedy bot by default).
    """
    bots = list(bots) if bots else [greedy_move] * players
    first = {**game_created(board, players, options), "seq": 1}
    events = [first]
    state = new_game(first)
    state.version = 1
    while not state.is_over:
        if len(events) >= MAX_EVENTS:
            raise RuntimeError(f"the game did not end within {MAX_EVENTS} events")
        if state.needs_deal:
            new = [round_started(state, deal(board, players, rng))]
        else:
            seat = state.seat_to_move
            new = decide(state, seat, bots[seat](state, seat))
        for event in new:
            event["seq"] = state.version + 1
            state = apply(state, event)
            events.append(event)
    return events
