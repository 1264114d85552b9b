"""The strong bot's suggestions and moves, here and in another tree: the same? (a check,
not a test: it needs a second worktree).

    .venv/bin/python benchmarks/same_moves.py --before /work/wt-before [--positions 150]

Positions come from games of the greedy and easy bots on both boards, 3 to 6 players,
without coloured track, with 3 coloured tracks, and with them and the stricter reading,
sampled across every phase (start markers, early and late track, later rounds). At each,
both trees give ``strong_suggestions`` (every field of every idea) and ``strong_move``
for the seat to move; then whole games with strong seats are played under a seed in
both. Each tree runs in a process of its own (its cwd and PYTHONPATH, its ``.venv``), on
the same event logs (made here, handed over as JSON). Exit status 1 on any difference.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]

# (board, players, options) of the games the positions come from.
VARIANTS = [
    {},
    {"exclusive_tracks": 3},
    {"exclusive_tracks": 3, "cities_must_join_start": True},
]
# Whole games with strong seats: (board, players, options, seed).
WHOLE_GAMES = [
    ("transamerica", 3, {}, 1),
    ("transeuropa", 4, {"exclusive_tracks": 3}, 2),
    ("transamerica", 5, {"exclusive_tracks": 3, "cities_must_join_start": True}, 3),
    ("transeuropa", 6, {}, 4),
]


def source_games() -> list[list[dict]]:
    """Event logs of games of greedy and easy bots (made in this tree)."""
    from games import rules
    from games.bots import easy_move, greedy_move, simulate

    logs = []
    seed = 0
    for board in rules.BOARD_NAMES:
        for options in VARIANTS:
            for players in range(3, 7):
                seed += 1
                bots = [greedy_move if (seat + seed) % 3 else easy_move for seat in range(players)]
                logs.append(
                    simulate(board, players, random.Random(seed), rules.Options(**options), bots)
                )
    return logs


def picked(logs: list[list[dict]], count: int) -> list[tuple[int, int]]:
    """(game, events) pairs: the positions after that many events where a seat is to move,
    spread evenly over all of them; a quarter of them start markers (a rarer phase)."""
    from games import rules

    placing, building = [], []
    for game, events in enumerate(logs):
        state = rules.replay(events[:1])
        for n, event in enumerate(events[1:], 1):
            if state.seat_to_move is not None:
                (placing if state.phase == rules.PLACING else building).append((game, n))
            state = rules.apply(state, event)
    chosen = []
    for every, share in ((placing, count // 4), (building, count - count // 4)):
        step = max(1, len(every) // share)
        chosen += every[::step][:share]
    return sorted(chosen)


def answers(job: dict) -> dict:
    """What this tree's strong bot says at each position, and its whole games."""
    from games import rules
    from games.bots import greedy_move, simulate, strong_move, strong_suggestions

    said = []
    for game, count in job["positions"]:
        state = rules.replay(job["logs"][game][:count])
        seat = state.seat_to_move
        ideas = [repr(idea) for idea in strong_suggestions(state, seat)]
        said.append({"at": [game, count], "ideas": ideas, "move": repr(strong_move(state, seat))})
    games = []
    for board, players, options, seed in job["whole_games"]:
        bots = [strong_move if seat % 2 == 0 else greedy_move for seat in range(players)]
        events = simulate(board, players, random.Random(seed), rules.Options(**options), bots)
        games.append(events)
    return {"positions": said, "games": games}


def run_trees(trees: list[Path], job_file: Path) -> list[dict]:
    """``answers`` as each tree's code gives them, each in a process of its own (at once)."""
    outs = [job_file.with_suffix(f".{n}.json") for n in range(len(trees))]
    running = [
        subprocess.Popen(
            [
                str(tree / ".venv/bin/python"),
                str(HERE),
                "--answer",
                str(job_file),
                "--out",
                str(out),
            ],
            cwd=tree,
            env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"},
        )
        for tree, out in zip(trees, outs, strict=True)
    ]
    if any(process.wait() for process in running):
        sys.exit("a tree's process failed")
    return [json.loads(out.read_text()) for out in outs]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="a worktree of the code to compare with")
    parser.add_argument("--positions", type=int, default=150)
    parser.add_argument("--answer", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.answer:
        args.out.write_text(json.dumps(answers(json.loads(args.answer.read_text()))))
        return
    if not args.before:
        parser.error("--before is required")
    sys.path.insert(0, str(ROOT))
    from games import rules

    logs = source_games()
    positions = picked(logs, args.positions)
    with tempfile.TemporaryDirectory() as scratch:
        job_file = Path(scratch) / "job.json"
        job_file.write_text(
            json.dumps({"logs": logs, "positions": positions, "whole_games": WHOLE_GAMES})
        )
        before, now = run_trees([args.before.resolve(), ROOT], job_file)
    phases: dict[str, int] = {}
    for game, count in positions:
        state = rules.replay(logs[game][:count])
        coloured = "coloured" if state.options.exclusive_tracks else "plain"
        key = f"{state.board.name} {coloured} {state.phase} {state.seat_count}p"
        phases[key] = phases.get(key, 0) + 1
    print(
        f"{len(positions)} positions: " + ", ".join(f"{k} {v}" for k, v in sorted(phases.items()))
    )
    differ = [
        (a["at"], a, b)
        for a, b in zip(before["positions"], now["positions"], strict=True)
        if a != b
    ]
    for at, a, b in differ:
        print(f"DIFFERENT at game {at[0]} after {at[1]} events:\n  before {a}\n  now    {b}")
    games_differ = [
        i for i, (a, b) in enumerate(zip(before["games"], now["games"], strict=True)) if a != b
    ]
    for i in games_differ:
        print(f"DIFFERENT whole game {WHOLE_GAMES[i]}")
    moves = sum(len(game) for game in now["games"])
    print(
        f"suggestions and moves: {len(positions) - len(differ)} of {len(positions)} the same; "
        f"whole games: {len(WHOLE_GAMES) - len(games_differ)} of {len(WHOLE_GAMES)} the same "
        f"({moves} events)"
    )
    sys.exit(1 if differ or games_differ else 0)


if __name__ == "__main__":
    main()
