"""Temporary: variants of the strong bot for trials (tournament only)."""

from functools import partial

from .strong import strong_move

VARIANTS = {
    "s4": partial(strong_move, starts=4),
    "c16": partial(strong_move, candidates=16),
}
