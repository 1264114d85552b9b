"""The minute's jobs hand out their tasks in one batch of publishes (helpers.broker), through
a real Celery worker and Redis (tests/real_worker.py)."""

import logging
from datetime import timedelta

from django.utils import timezone

from accounts.models import User
from games.services import start_vacation
from games.tasks import end_vacation
from helpers.broker import queue_each
from tests.factories import UserFactory
from tests.real_worker import NEEDS_WORKER, celery_worker, wait_for

END_VACATION = "games.tasks.end_vacation"

pytestmark = NEEDS_WORKER


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
    logger = logging.getLogger("helpers.broker")
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
