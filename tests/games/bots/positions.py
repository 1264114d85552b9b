"""Positions met in games of bots, for the bots' tests."""

from __future__ import annotations

import random
from collections.abc import Iterator

from games import rules
from games.bots import simulate


def positions(events: list[dict], every: int = 1, start: int = 2) -> Iterator[rules.GameState]:
    """The states along a log where a seat is to move: after event ``start``, then every
    ``every`` events (the log is replayed once, event by event)."""
    state = rules.replay(events[:start])
    for count, event in enumerate(events[start:]):
        if count % every == 0 and state.seat_to_move is not None:
            yield state
        state = rules.apply(state, event)


def greedy_positions(
    board: str, seats: int, seed: int, options: rules.Options | None = None, every: int = 7
) -> Iterator[rules.GameState]:
    """Positions of a whole game of greedy bots, one every ``every`` events."""
    yield from positions(simulate(board, seats, random.Random(seed), options), every)


def one_round_of_greedy_play(seed: int, players: int = 4) -> list[rules.GameState]:
    """The building positions of the first round of a game of greedy bots."""
    events = simulate("transamerica", players, random.Random(seed))
    return [
        state for state in positions(events) if state.round == 1 and state.phase == rules.BUILDING
    ]
