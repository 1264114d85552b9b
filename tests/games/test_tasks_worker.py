"""Bot turns through a real Celery worker (tests/real_worker.py): a table of bots plays
its game in batches of BOT_TURNS_PER_TASK turns, each batch a task that queues the next.

tests/games/test_tasks.py runs the task in-process, where it plays on in its loop.
"""

from itertools import pairwise

import games.tasks  # noqa: F401  (registers the task with the test's app)
from games import rules
from games.models import Game
from games.tasks import BOT_TURNS_PER_TASK
from tests.factories import GameFactory
from tests.real_worker import NEEDS_WORKER, celery_worker, wait_for

PLAY_BOT_TURN = "games.tasks.play_bot_turn"
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
