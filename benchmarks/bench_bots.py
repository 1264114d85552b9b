"""Time per bot move, as figures (not a test).

    .venv/bin/python benchmarks/bench_bots.py [--games N]

Goal: one move of any bot under 2 s (CPython, this machine). Moves are timed in whole games
between the bots, on both boards, 2 to 6 players, with and without the variants (3 coloured
tracks; the stricter reading), so early, middle and late positions are all in the figures.
The row "ideas" is what a your-turn email's three suggestions cost (the strong bot's
``strong_suggestions``, timed at each of its turns): computed once per email, and again
when a reply or a suggestion's link picks one.

Win rates are not measured here: ``manage.py tournament`` plays them (see
benchmarks/README.md).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games import rules  # noqa: E402
from games.bots import BOTS, simulate, strong_suggestions  # noqa: E402

GOAL_SECONDS = 2.0
VARIANTS = {
    "plain": rules.Options(),
    "3 coloured + strict": rules.Options(exclusive_tracks=3, cities_must_join_start=True),
}


def timed_games(board: str, players: int, options: rules.Options, games: int) -> dict:
    """Seconds per move for each bot, over ``games`` games where the bots alternate seats."""
    times: dict[str, list[float]] = {name: [] for name in [*BOTS, "ideas"]}

    def timing(name):
        bot = BOTS[name]

        def play(state, seat):
            start = time.perf_counter()
            move = bot(state, seat)
            times[name].append(time.perf_counter() - start)
            if name == "strong":
                start = time.perf_counter()
                strong_suggestions(state, seat)
                times["ideas"].append(time.perf_counter() - start)
            return move

        return play

    names = list(BOTS)
    for game in range(games):
        seated = [timing(names[(seat + game) % len(names)]) for seat in range(players)]
        simulate(board, players, random.Random(game), options, seated)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2, help="games per setting (default 2)")
    games = parser.parse_args().games
    print(f"Python {sys.version.split()[0]}; {games} games per setting; goal {GOAL_SECONDS:g} s")
    worst = 0.0
    for board in rules.BOARD_NAMES:
        for label, options in VARIANTS.items():
            for players in range(rules.MIN_SEATS, rules.MAX_SEATS + 1):
                for name, figures in timed_games(board, players, options, games).items():
                    if not figures:
                        continue  # not seated: fewer games than bots and seats turn
                    figures.sort()
                    p95 = figures[min(len(figures) - 1, int(len(figures) * 0.95))]
                    median = statistics.median(figures)
                    worst = max(worst, figures[-1])
                    print(
                        f"{board:<12} {label:<20} {players} players  {name:<7}"
                        f" {len(figures):>5} moves  median {median * 1000:7.1f} ms"
                        f"  p95 {p95 * 1000:7.1f} ms  max {figures[-1] * 1000:7.1f} ms"
                    )
    verdict = "ok" if worst < GOAL_SECONDS else "OVER GOAL"
    print(f"slowest move {worst * 1000:.0f} ms: {verdict}")


if __name__ == "__main__":
    main()
