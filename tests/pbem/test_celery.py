import os
import uuid

import pytest
from django.conf import settings

from pbem import celery_app


def test_the_celery_app_reads_djangos_celery_settings():
    assert celery_app.conf.task_always_eager == settings.CELERY_TASK_ALWAYS_EAGER
    assert celery_app.conf.broker_url == settings.CELERY_BROKER_URL


@pytest.mark.postgres  # a real component: runs in the PostgreSQL pass, where Redis is
@pytest.mark.skipif(not os.getenv("REDIS_TEST_URL"), reason="needs Redis: set REDIS_TEST_URL")
def test_a_message_goes_through_redis_as_the_broker():
    name = f"railmail-test-{uuid.uuid4().hex}"
    with celery_app.connection_for_write(os.environ["REDIS_TEST_URL"]) as conn:
        queue = conn.SimpleQueue(name)
        try:
            queue.put({"hello": "redis"})
            message = queue.get(timeout=5)
            message.ack()
            assert message.payload == {"hello": "redis"}
        finally:
            queue.clear()
            queue.close()


def test_the_beat_schedule_names_registered_tasks_and_delivery_is_acked_late():
    celery_app.loader.import_default_modules()
    for entry in settings.CELERY_BEAT_SCHEDULE.values():
        assert entry["task"] in celery_app.tasks
    deliver = celery_app.tasks["notifications.tasks.deliver"]
    # A worker that dies mid-task leaves the message for another worker (the outbox
    # row's claim then keeps the email from going twice: tests/notifications/test_worker).
    assert deliver.acks_late
    assert celery_app.conf.worker_prefetch_multiplier == 1
