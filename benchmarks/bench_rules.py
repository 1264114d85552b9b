"""Speed of the rules engine, as figures (not a test).

    .venv/bin/python benchmarks/bench_rules.py

Goals: exact scoring of one hand on an empty TransAmerica board under 5 ms; a full replay
of a six-player, three-round game under 50 ms (CPython, this machine).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games import rules  # noqa: E402
from games.bots import simulate  # noqa: E402

KNOWN_HAND = ["San Diego", "Dallas", "St. Louis", "Cincinnati", "Washington"]


def timed(func, repeat: int) -> list[float]:
    """Milliseconds per call, one figure per call."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append((time.perf_counter() - start) * 1000)
    return times


def report(label: str, times: list[float], goal: float) -> None:
    median = statistics.median(times)
    worst = max(times)
    verdict = "ok" if median < goal else "OVER GOAL"
    print(
        f"{label:<58} median {median:7.2f} ms  p95 {sorted(times)[int(len(times) * 0.95)]:7.2f} ms"
        f"  max {worst:7.2f} ms  goal {goal:g} ms  {verdict}"
    )


def empty_board(hands, options=None):
    state = rules.replay([rules.game_created("transamerica", len(hands), options)])
    return rules.apply(state, rules.round_started(state, hands))


def six_player_three_round_game(options=None) -> list[dict]:
    for seed in range(1000):
        events = simulate("transamerica", 6, random.Random(seed), options)
        if rules.replay(events).round == 3:
            return events
    raise SystemExit("no three-round six-player game found")


def main() -> None:
    rng = random.Random(1)
    print(f"Python {sys.version.split()[0]}")

    # Seat 0's hand is set by hand (it may repeat a dealt city: scoring reads seat 0 only).
    state = empty_board(rules.deal("transamerica", 6, rng))
    state.hands = [tuple(KNOWN_HAND), *state.hands[1:]]
    assert rules.missing_cost(state, 0) == 19
    report(
        "score the known hand, empty TransAmerica board",
        timed(lambda: rules.missing_cost(state, 0), 300),
        5,
    )

    random_hands = []
    for _ in range(200):
        random_hands.append(empty_board(rules.deal("transamerica", 6, rng)))
    costs = iter(random_hands * 2)
    report(
        "score a random hand, empty TransAmerica board",
        timed(lambda: rules.missing_cost(next(costs), 0), 400),
        5,
    )
    strict = rules.Options(cities_must_join_start=True)
    strict_state = empty_board(rules.deal("transamerica", 6, rng), strict)
    strict_state.starts = [strict_state.board.point_index[(16, 1)]] + [None] * 5
    report(
        "score a hand + start marker (6 terminals), strict reading",
        timed(lambda: rules.missing_cost(strict_state, 0), 300),
        5,
    )

    for label, options in (("", None), (", 3 coloured tracks", rules.Options(exclusive_tracks=3))):
        events = six_player_three_round_game(options)
        report(
            f"replay a 6-player 3-round game ({len(events)} events{label})",
            timed(lambda events=events: rules.replay(events), 50),
            50,
        )


if __name__ == "__main__":
    main()
