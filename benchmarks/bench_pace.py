"""How many days a game takes, with and without build plans, as figures (not a test).

    .venv/bin/python benchmarks/bench_pace.py [--games 30] [--looks 1,2,4]

Whole four-player TransAmerica games through the real write path (services.submit_move,
the plans' and bots' turns queued after each commit, the clock's deadline task) with a
simulated clock: the project's timing defaults (a day a move, reminders, a bot plays a
turn that runs out; the default quiet hours 22:00 to 07:00 in each player's zone). Half
the table lives six hours ahead. Each person looks at their email at N random waking
moments a day (07:00 to 22:00 in their zone), plays the greedy move when it is their
turn, and leaves a build plan by one of three habits: none; toward their nearest missing
city at each look; all my cities at each look. The same deals and look schedules in every
row. Prints the median and 90th-percentile days a game takes, the share of turns plans
played, and the turns bots played after a timeout (apart).

Goals at two looks a day: toward-nearest <= 14 days, all-my-cities <= 7 days.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from unittest import mock
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
for key in ("DATABASE_URL", "CELERY_BROKER_URL"):
    os.environ.pop(key, None)  # SQLite in memory, tasks in-process
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pbem.settings")
os.environ["LOG_LEVEL"] = "ERROR"

import django  # noqa: E402

django.setup()

import logging  # noqa: E402

from django.db import connection  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

logging.disable(logging.WARNING)

ZONES = ("Europe/London", "Asia/Dhaka")  # six hours apart (in winter), two seats each
HABITS = ("none", "toward nearest", "all my cities")
DAY = timedelta(days=1)
BEGIN = datetime(2027, 1, 4, 9, 0, tzinfo=UTC)  # a Monday


class Clock:
    """The simulated now, patched into django.utils.timezone.now."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def look_times(rng: random.Random, zone: str, per_day: int, days: int) -> list[datetime]:
    """``per_day`` random waking moments (07:00 to 22:00 local) each day."""
    tz = ZoneInfo(zone)
    start = BEGIN.astimezone(tz).date()
    moments = []
    for day in range(days):
        date = start + timedelta(days=day)
        for _look in range(per_day):
            minute = rng.randrange(7 * 60, 22 * 60)
            local = datetime(date.year, date.month, date.day, minute // 60, minute % 60, tzinfo=tz)
            moments.append(local.astimezone(UTC))
    return sorted(moments)


def play_game(seed: int, per_day: int, habit: str, clock: Clock) -> dict:
    from games import rules, services
    from games.bots import greedy_move
    from games.bots.greedy import choose_start
    from games.models import Game, PlanTurn
    from games.services import SeatSpec, plans, random_deal
    from games.services import clock as game_clock

    clock.now = BEGIN
    deal_rng = random.Random(seed)
    # The same deals in every row: the service's draw, from a seeded source.
    with mock.patch.object(random_deal, "rng", deal_rng):
        players = [SeatSpec(f"P{n}", f"p{n}-{seed}@example.com") for n in range(4)]
        game = services.create_game("transamerica", None, players, None, DAY)
        game = services.start_game(game)
        seats = list(game.seats.order_by("position"))
        for seat in seats:
            zone = ZONES[seat.position % 2]
            game_clock.set_quiet_hours(seat, zone, *_night())
        look_rng = random.Random(seed * 1000 + 7)
        looks = []
        for seat in seats:
            zone = ZONES[seat.position % 2]
            looks += [(t, seat.position) for t in look_times(look_rng, zone, per_day, 400)]
        looks.sort()
        moves = timeouts = 0
        for moment, position in looks:
            game = Game.objects.get(pk=game.pk)
            while game.status == Game.Status.ACTIVE and game.deadline and game.deadline <= moment:
                clock.now = game.deadline
                game_clock.apply_deadline(game.pk, clock.now)
                timeouts += 1
                game = Game.objects.get(pk=game.pk)
            if game.status != Game.Status.ACTIVE:
                break
            clock.now = moment
            seat = seats[position]
            state = services.load_state(game)
            if state.seat_to_move == position:
                try:
                    game = services.submit_move(
                        game, seat, greedy_move(state, position), game.version
                    )
                    moves += 1
                except services.GameMovedOn:
                    pass
                game = Game.objects.get(pk=game.pk)
                if game.status != Game.Status.ACTIVE:
                    break
                state = services.load_state(game)
            if habit == "none":
                continue
            seat.refresh_from_db()
            try:
                if habit == "all my cities":
                    form, details = rules.plans.ALL, {}
                else:
                    target = _nearest_missing(state, position)
                    if target is None:
                        continue
                    form, details = rules.plans.CITY, {"city": target}
                if state.phase == rules.PLACING and state.start_point(position) is None:
                    details["starts"] = [choose_start(state, position)]
                plans.set_plan(seat, form, **details)
            except plans.PlanError:
                continue
        game = Game.objects.get(pk=game.pk)
        ended = game.finished_at or clock.now
        turns = game.events.filter(type__in=rules.MOVE_EVENTS).count()
        planned = PlanTurn.objects.filter(game=game).count()
        return {
            "days": (ended - BEGIN) / DAY,
            "turns": turns,
            "planned": planned,
            "timeouts": timeouts,
            "finished": game.status == Game.Status.FINISHED,
        }


def _night():
    from datetime import time

    return time(22, 0), time(7, 0)


def _nearest_missing(state, position: int) -> str | None:
    from games import rules

    if state.phase not in (rules.PLACING, rules.BUILDING):
        return None
    own = rules.network(state, position)
    if not own:
        return state.hands[position][0]
    dist = rules.distances(rules.cost_graph(state.board, state.built, position), own)
    missing = [c for c in state.hands[position] if state.board.city_point(c) not in own]
    if not missing:
        return None
    return min(missing, key=lambda c: (dist[state.board.city_point(c)], c))


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--looks", default="1,2,4")
    parser.add_argument("--habits", default=",".join(HABITS))
    args = parser.parse_args()
    setup_test_environment()
    connection.creation.create_test_db(verbosity=0)
    clock = Clock(BEGIN)
    print(
        f"{'looks/day':>9} {'habit':<15} {'games':>5} {'median days':>11} {'p90 days':>8} "
        f"{'plan share':>10} {'timeouts':>8}"
    )
    from notifications import tasks as mail_tasks

    # The outbox rows are written with each move, as always; sending them (drawing each
    # email's board picture) is not what this measures.
    with (
        mock.patch("django.utils.timezone.now", clock),
        mock.patch.object(mail_tasks, "deliver_after_commit", lambda *args, **kwargs: None),
    ):
        for per_day in [int(n) for n in args.looks.split(",")]:
            for habit in args.habits.split(","):
                results = [play_game(seed, per_day, habit, clock) for seed in range(args.games)]
                days = [r["days"] for r in results]
                turns = sum(r["turns"] for r in results)
                share = sum(r["planned"] for r in results) / turns if turns else 0
                print(
                    f"{per_day:>9} {habit:<15} {len(results):>5} "
                    f"{statistics.median(days):>11.1f} {percentile(days, 0.9):>8.1f} "
                    f"{share:>10.0%} {sum(r['timeouts'] for r in results):>8}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
