"""Builds the engine's searches and the strong bot's what-ifs to C with mypyc.

The modules stay plain, typed Python, and the source of truth: mypyc checks their types
and compiles them to extension modules, which Python imports in their place. The same
code runs some 40 % faster (a your-turn email's suggestions, a bot's turn, the exact
scoring of a round), with the same results (benchmarks/same_moves.py). Everything else is
set in pyproject.toml; this file exists because setuptools takes extension modules only
from here.
"""

from mypyc.build import mypycify
from setuptools import setup

# Where a your-turn email's suggestions spend their time (benchmarks/bench_outbox.py):
# the cheapest-path searches and Steiner tables, and the playouts built on them.
# tests/test_setup.py checks that each is imported compiled and built from its source.
COMPILED = [
    "games/rules/graph.py",
    "games/rules/scoring.py",
    "games/bots/lookahead.py",
    "games/bots/reading.py",
    "games/bots/rollout.py",
    "games/bots/strong.py",
]

# Type errors count in the compiled modules only: the rest of the engine is read for its
# types, and runs as Python.
# mypyc's runtime for them is one more module, at the top: railmail__mypyc.
setup(
    ext_modules=mypycify(
        ["--follow-imports=silent", *COMPILED], opt_level="3", group_name="railmail"
    )
)
