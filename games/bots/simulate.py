"""Whole games played by bots: for the ``simulate`` and ``tournament`` commands, tests and
benchmarks."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from games import rules

from .greedy import greedy_move

# A player: the move it makes for a seat, seeing the game as that seat may.
Bot = Callable[[rules.GameState, int], rules.Move]

# Far more events than any real game (a round is at most ~90 turns): a safety stop.
MAX_EVENTS = 20_000


def simulate(
    board: str,
    players: int,
    rng,
    options: rules.Options | None = None,
    bots: Sequence[Bot] | None = None,
) -> list[dict]:
    """Play a whole game; return its event log (with ``seq``).

    ``rng`` (a ``random.Random``) deals the cities; ``bots`` gives each seat's player
    (the greedy bot by default).
    """
    bots = list(bots) if bots else [greedy_move] * players
    first = {**rules.game_created(board, players, options), "seq": 1}
    events = [first]
    state = rules.replay(events)
    while not state.is_over:
        if len(events) >= MAX_EVENTS:
            raise RuntimeError(f"the game did not end within {MAX_EVENTS} events")
        if state.needs_deal:
            new = [rules.round_started(state, rules.deal(board, players, rng))]
        else:
            seat = state.seat_to_move
            new = rules.decide(state, seat, bots[seat](state, seat))
        for event in new:
            event["seq"] = state.version + 1
            state = rules.apply(state, event)
            events.append(event)
    return events
