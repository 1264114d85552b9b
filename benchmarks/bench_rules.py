"""Speed of the rules engine, as figures (not a test).

    .venv/bin/python benchmarks/bench_rules.py

Goals (CPython, this machine): exact scoring of one hand under 1 ms in every reading, the
stricter one (a start marker as a sixth point to join) included; a full replay, checking
every rule and each round's scoring, of the longest of a set of bot games under 40 ms.

Times are the process's CPU time (``time.process_time``), so that other work on a shared
machine does not count; medians, with the 95th percentile and the worst.
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
        start = time.process_time()
        func()
        times.append((time.process_time() - start) * 1000)
    return times


def report(label: str, times: list[float], goal: float) -> None:
    median = statistics.median(times)
    worst = max(times)
    verdict = "ok" if median < goal else "OVER GOAL"
    print(
        f"{label:<62} median {median:7.2f} ms  p95 {sorted(times)[int(len(times) * 0.95)]:7.2f} ms"
        f"  max {worst:7.2f} ms  goal {goal:g} ms  {verdict}"
    )


def empty_board(hands, options=None, board="transamerica"):
    state = rules.replay([rules.game_created(board, len(hands), options)])
    return rules.apply(state, rules.round_started(state, hands))


def six_player_three_round_game(options=None) -> list[dict]:
    for seed in range(1000):
        events = simulate("transamerica", 6, random.Random(seed), options)
        if rules.replay(events).round == 3:
            return events
    raise SystemExit("no three-round six-player game found")


def longest_game() -> list[dict]:
    """The longest of 40 games of six greedy bots: both boards, plain and with both
    variants (3 coloured tracks, the stricter reading)."""
    variants = (None, rules.Options(exclusive_tracks=3, cities_must_join_start=True))
    games = (
        simulate(board, 6, random.Random(seed), options)
        for board in rules.BOARD_NAMES
        for options in variants
        for seed in range(10)
    )
    return max(games, key=len)


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
        1,
    )

    strict = rules.Options(cities_must_join_start=True)
    for board in rules.BOARD_NAMES:
        for label, options in (("", None), (" + start marker, strict", strict)):
            hands = [empty_board(rules.deal(board, 6, rng), options, board) for _ in range(200)]
            if options:
                for hand in hands:
                    # A start marker off the hand's cities: a sixth point to join.
                    cities = {hand.board.city_point(name) for name in hand.hands[0]}
                    free = [p for p in range(len(hand.board.points)) if p not in cities]
                    hand.starts = [rng.choice(free)] + [None] * 5
            costs = iter(hands * 2)
            report(
                f"score a random hand{label}, empty {rules.get_board(board).title}",
                timed(lambda costs=costs: rules.missing_cost(next(costs), 0), 400),
                1,
            )
    strict_state = empty_board(rules.deal("transamerica", 6, rng), strict)
    strict_state.starts = [strict_state.board.point_index[(16, 1)]] + [None] * 5
    report(
        "score a hand + start marker (6 terminals), strict reading",
        timed(lambda: rules.missing_cost(strict_state, 0), 300),
        1,
    )

    for label, options in (("", None), (", 3 coloured tracks", rules.Options(exclusive_tracks=3))):
        events = six_player_three_round_game(options)
        report(
            f"replay a 6-player 3-round game ({len(events)} events{label})",
            timed(lambda events=events: rules.replay(events), 50),
            40,
        )
    events = longest_game()
    created = events[0]
    report(
        f"replay the longest game ({len(events)} events, {created['board']}, "
        f"{sum(e['type'] == rules.ROUND_SCORED for e in events)} rounds)",
        timed(lambda: rules.replay(events), 50),
        40,
    )


if __name__ == "__main__":
    main()
