"""Temporary: variants of the strong bot for trials (tournament only)."""

from functools import partial

from .strong import strong_move

VARIANTS = {
    "roll": partial(strong_move, judge="rollout", candidates=6, tables=6),
    "rollx": partial(strong_move, judge="rollout", candidates=6, tables=6, extra=3),
    "rolls": partial(strong_move, judge="rollout", candidates=6, tables=6, starts=6),
    "rollw0": partial(strong_move, judge="rollout", candidates=6, tables=6, weight=0.0),
    "rollw1": partial(strong_move, judge="rollout", candidates=6, tables=6, weight=1.0),
    "roll12": partial(strong_move, judge="rollout", candidates=10, tables=12),
    "roll88": partial(strong_move, judge="rollout", candidates=8, tables=8),
}
