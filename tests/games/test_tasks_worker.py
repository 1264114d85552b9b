"""Bot turns through a real Celery worker (tests/real_worker.py): a table of bots plays
its game in batches of BOT_TURNS_PER_TASK turns, each batch a task that queues the next.
And the minute's jobs hand out their tasks in one batch of publishes (queue_each).

tests/games/test_tasks.py runs the task in-process, where it plays on in its loop.
"""

import logging
from datetime import timedelta
from itertools import pairwise

from django.utils import timezone

import games.tasks  # noqa: F401  (registers the task with the test's app)
from accounts.models import User
from games import rules
from games.models import Game
from games.services import start_vacation
from games.tasks import BOT_TURNS_PER_TASK, end_vacation, queue_each
from tests.factories import GameFactory, UserFactory
from tests.real_worker import NEEDS_WORKER, celery_worker, wait_for

PLAY_BOT_TURN = "games.tasks.play_bot_turn"
END_VACATION = "games.tasks.end_vacation"
MOVES = ("start_placed", "track_built")  # the events a turn's move appends first
GAME_TIMEOUT = 180  # seconds for a whole game of greedy bots (a few, unless the CPU is busy)

pytestmark = NEEDS_WORKER


def test_a_table_of_bots_plays_its_game_in_batches_of_tasks():
    with celery_worker() as worker:
        # The start's commit queues the first task; each full batch queues the next.
        game = GameFactory(seats=3, bots="greedy")
        started_at = game.version

        def over_and_idle() -> bool:
            """The game is over and every task queued has run."""
            game.refresh_from_db()
            idle = len(worker.runs(PLAY_BOT_TURN)) == len(worker.queued(PLAY_BOT_TURN))
            return idle and game.status == Game.Status.FINISHED

        wait_for(over_and_idle, "the bots to finish the game", timeout=GAME_TIMEOUT)

    events = list(game.events.order_by("seq").values_list("seq", "type"))
    assert [seq for seq, _type in events] == list(range(1, game.version + 1))
    assert rules.replay(game.engine_events()).is_over  # every move legal, in turn

    runs = worker.runs(PLAY_BOT_TURN)
    assert [args for args, _played in runs] == worker.queued(PLAY_BOT_TURN)  # each ran once
    versions = [version for (game_id, version), _played in runs if game_id == game.pk]
    played = [turns for _args, turns in runs]
    assert len(versions) == len(runs) >= 3  # several batches, one task each
    assert versions == sorted(set(versions))  # no version queued twice
    assert versions[0] == started_at
    # Every batch but the last is full; the last ends the game.
    assert played[:-1] == [BOT_TURNS_PER_TASK] * (len(runs) - 1)
    assert 0 < played[-1] <= BOT_TURNS_PER_TASK

    # Each task played the turns from its version to the next task's, no turn twice and
    # none skipped: the log's moves, split at the versions the tasks started from.
    moves = [seq for seq, type_ in events if type_ in MOVES]
    assert sum(played) == len(moves)
    bounds = [*versions, game.version]
    assert [sum(start < seq <= end for seq in moves) for start, end in pairwise(bounds)] == played


def test_the_minutes_tasks_go_to_redis_in_one_batch_and_a_bad_call_stops_none(caplog):
    now = timezone.now()
    away = UserFactory.create_batch(12)
    for user in away:
        start_vacation(user, 2, now=now - timedelta(days=3))  # has run out
    at = now.isoformat()
    # The first call cannot be serialized (JSON has no object()): the others still go,
    # the first of them declaring the queue.
    calls = [(object(), at), *[(user.pk, at) for user in away]]

    # The worker's logging setup takes the root logger's handlers, caplog's among them.
    logger = logging.getLogger("games.tasks")
    logger.addHandler(caplog.handler)
    try:
        with celery_worker() as worker:
            queue_each(end_vacation, calls)
            wait_for(lambda: len(worker.runs(END_VACATION)) == len(away), "every vacation task")
    finally:
        logger.removeHandler(caplog.handler)

    # Each reached the worker through Redis, once, and did its work.
    assert sorted(worker.runs(END_VACATION)) == sorted(((user.pk, at), True) for user in away)
    assert not User.objects.filter(pk__in=[user.pk for user in away], vacation_until__isnull=False)
    assert f"{END_VACATION} of {calls[0][0]} failed" in caplog.messages
