"""Dealing each round's cities.

The rules engine has no randomness of its own: the service draws the deal here and
records it in the round_started event, so that replaying the log always gives the same
game. The draw uses the operating system's cryptographic source, so that nobody can
predict another player's cities from earlier deals.
"""

import secrets

from games import rules

rng = secrets.SystemRandom()


def deal_round(state) -> dict:
    """Return the round_started event that deals the next round of ``state``'s game."""
    hands = rules.deal(state.board.name, state.seat_count, rng)
    return rules.round_started(state, hands)
