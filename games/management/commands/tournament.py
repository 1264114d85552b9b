"""Bots against bots: how strong each bot is, with confidence intervals.

    python manage.py tournament --games 200 --players 4 --bots strong,greedy,greedy,greedy
    python manage.py tournament --suite --games 400     # the strong bot's whole table

Each deal is played once in every rotation of the line-up, so every bot plays every seat
and hand equally often; ``--seed`` makes the table repeatable. Line-ups may also seat the
strategies published with other programs (``games.bots.published``).
"""

from __future__ import annotations

import math
import multiprocessing
import random
import statistics
import time
from collections import defaultdict
from dataclasses import dataclass, field

from django.core.management.base import BaseCommand, CommandError

from games import rules
from games.bots import BOTS, simulate
from games.bots.published import PUBLISHED
from games.management.lineup import parse_lineup

Z95 = 1.96


def seatable() -> dict:
    """Everyone a line-up may seat: the levels, then the published strategies."""
    return {**BOTS, **PUBLISHED}


# ``--suite``: the strong bot against three of each of these, in these settings.
SUITE_OPPONENTS = ("greedy", "central", "merging", "optimiser")
SUITE_SETTINGS = tuple((board, coloured) for board in rules.BOARD_NAMES for coloured in (0, 3))


@dataclass
class Tally:
    """One bot's results over the tournament."""

    games: int = 0
    wins: float = 0.0  # a win shared by k tied seats counts 1/k
    losses: list[int] = field(default_factory=list)  # points lost, one figure per round
    slowest: float = 0.0  # seconds, the slowest move


def play_game(job: tuple) -> list[tuple[str, float, list[int], float]]:
    """Play one game; return each seat's (bot, share of the win, losses, slowest move)."""
    board, lineup, options, deal_seed, turn = job
    players = len(lineup)
    seated = [lineup[(seat + turn) % players] for seat in range(players)]
    slowest = [0.0] * players

    def timed(seat_bot):
        def play(state, seat):
            began = time.perf_counter()
            move = seat_bot(state, seat)
            slowest[seat] = max(slowest[seat], time.perf_counter() - began)
            return move

        return play

    events = simulate(
        board, players, random.Random(deal_seed), options, [timed(seatable()[n]) for n in seated]
    )
    state = rules.replay(events)
    losses = [[] for _ in range(players)]
    for event in events:
        if event["type"] == rules.ROUND_SCORED:
            for seat, loss in enumerate(event["losses"]):
                losses[seat].append(loss)
    share = 1 / len(state.winners)
    return [
        (name, share if seat in state.winners else 0.0, losses[seat], slowest[seat])
        for seat, name in enumerate(seated)
    ]


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_interval(values: list[int], z: float = Z95) -> tuple[float, float]:
    """The mean and the half-width of its normal-approximation interval."""
    if not values:
        return (0.0, 0.0)
    mean = statistics.fmean(values)
    if len(values) < 2:
        return (mean, math.inf)
    return (mean, z * statistics.stdev(values) / math.sqrt(len(values)))


class Command(BaseCommand):
    help = (
        "Play bots against each other (seats rotated, deals from --seed) and print each "
        "bot's win rate and average loss per round with 95% confidence intervals."
    )

    def add_arguments(self, parser):
        parser.add_argument("--games", type=int, default=200, help="games to play (default 200)")
        parser.add_argument("--players", type=int, default=4, help="2 to 6 (default 4)")
        parser.add_argument(
            "--bots",
            default="strong,greedy,greedy,greedy",
            help=f"the line-up, one bot per seat, comma-separated; bots: {', '.join(seatable())}",
        )
        parser.add_argument("--board", choices=rules.BOARD_NAMES, default="transamerica")
        parser.add_argument("--seed", type=int, default=0, help="deals (default 0)")
        parser.add_argument(
            "--exclusive-tracks", type=int, default=0, help="coloured tracks per player and round"
        )
        parser.add_argument(
            "--strict",
            action="store_true",
            help="cities count as joined only through the player's own start marker",
        )
        parser.add_argument(
            "--suite",
            action="store_true",
            help=(
                "the strong bot against three of each of "
                f"{', '.join(SUITE_OPPONENTS)}, on both boards, with and without 3 "
                "coloured tracks (--games each; --bots, --board and --exclusive-tracks "
                "are ignored)"
            ),
        )
        parser.add_argument(
            "--published-games",
            type=int,
            default=None,
            help="with --suite: games against each published line-up (default: --games)",
        )
        parser.add_argument(
            "--times",
            action="store_true",
            help="also print each bot's slowest move (wall time: differs from run to run)",
        )
        parser.add_argument(
            "--workers",
            type=int,
            default=1,
            help="processes playing games side by side (default 1)",
        )

    def handle(
        self,
        *args,
        games,
        players,
        bots,
        board,
        seed,
        exclusive_tracks,
        strict,
        suite,
        published_games,
        workers,
        times,
        **options,
    ):
        seats = players
        if games < 1:
            raise CommandError("--games must be at least 1")
        if workers < 1:
            raise CommandError("--workers must be at least 1")
        try:
            rules.dealing.check_seat_count(seats)
            rules.Options(exclusive_tracks=exclusive_tracks, cities_must_join_start=strict)
        except ValueError as error:
            raise CommandError(str(error)) from None
        if suite:
            self._suite(games, published_games or games, seats, seed, strict, workers)
            return
        lineup = parse_lineup(bots, seats, seatable())
        game_options = rules.Options(
            exclusive_tracks=exclusive_tracks, cities_must_join_start=strict
        )
        tallies = self._play(board, lineup, game_options, games, seed, workers)
        self._report(tallies, games, seats, lineup, board, seed, game_options, times)

    def _play(self, board, lineup, options, games, seed, workers) -> dict[str, Tally]:
        # Game g plays deal g // seats with the line-up turned by g places.
        seats = len(lineup)
        jobs = [
            (board, lineup, options, seed * 1_000_003 + g // seats, g % seats) for g in range(games)
        ]
        tallies: dict[str, Tally] = defaultdict(Tally)
        if workers == 1:
            self._tally(map(play_game, jobs), tallies)
        else:
            # Spawned, not forked: a fork copies the locks that the caller's other threads
            # (a test runner's live server, a Celery worker) may hold, and can hang.
            with multiprocessing.get_context("spawn").Pool(workers) as pool:
                self._tally(pool.imap(play_game, jobs, chunksize=4), tallies)
        return tallies

    def _tally(self, results, tallies: dict[str, Tally]) -> None:
        for game in results:
            for name, share, losses, slowest in game:
                tally = tallies[name]
                tally.games += 1
                tally.wins += share
                tally.losses.extend(losses)
                tally.slowest = max(tally.slowest, slowest)

    def _suite(self, games, published_games, players, seed, strict, workers) -> None:
        write = self.stdout.write
        write(
            f"The strong bot against {players - 1} of each, {games} games each "
            f"({published_games} against the published strategies), seed {seed}; "
            f"seats rotated, a shared win counts 1/k; fair share {1 / players:.1%}."
        )
        write(
            f"{'board':<13} {'coloured':>8} {'against':<10} {'games':>6} {'wins':>7} "
            f"{'win rate (95% CI)':>24} {'loss/round':>10} {'theirs':>7} {'slowest':>8}"
        )
        for board, coloured in SUITE_SETTINGS:
            options = rules.Options(exclusive_tracks=coloured, cities_must_join_start=strict)
            for opponent in SUITE_OPPONENTS:
                lineup = ["strong", *[opponent] * (players - 1)]
                count = games if opponent in BOTS else published_games
                began = time.monotonic()
                tallies = self._play(board, lineup, options, count, seed, workers)
                ours, theirs = tallies["strong"], tallies[opponent]
                low, high = wilson(ours.wins, ours.games)
                write(
                    f"{board:<13} {coloured:>8} {opponent:<10} {ours.games:>6} "
                    f"{ours.wins:>7.1f} {ours.wins / ours.games:>8.1%} "
                    f"({low:>6.1%} - {high:>6.1%}) {statistics.fmean(ours.losses):>10.2f} "
                    f"{statistics.fmean(theirs.losses):>7.2f} {ours.slowest:>7.2f}s"
                    f"   ({time.monotonic() - began:.0f} s)"
                )

    def _report(self, tallies, games, players, lineup, board, seed, options, times) -> None:
        write = self.stdout.write
        write(
            f"{games} games of {players} players on {rules.get_board(board).title}, "
            f"seed {seed}, line-up {','.join(lineup)}, options {options.to_dict()}"
        )
        write(
            "Seats rotated; a win shared by k tied players counts 1/k. "
            f"Fair share {1 / players:.1%}."
        )
        write(
            f"{'bot':<10} {'games':>6} {'wins':>7} {'win rate (95% CI)':>24} "
            f"{'rounds':>7} {'avg loss/round (95% CI)':>26}" + (f" {'slowest':>8}" if times else "")
        )
        for name in dict.fromkeys(lineup):
            tally = tallies[name]
            low, high = wilson(tally.wins, tally.games)
            rate = tally.wins / tally.games if tally.games else 0.0
            mean, half = mean_interval(tally.losses)
            write(
                f"{name:<10} {tally.games:>6} {tally.wins:>7.1f} "
                f"{rate:>8.1%} ({low:>6.1%} - {high:>6.1%}) "
                f"{len(tally.losses):>7} {mean:>12.2f} ± {half:<5.2f}"
                f" ({mean - half:.2f} - {mean + half:.2f})"
                + (f" {tally.slowest:>7.2f}s" if times else "")
            )
