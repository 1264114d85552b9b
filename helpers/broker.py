"""Queueing many small Celery tasks at once, over one connection to the broker."""

import logging
from collections.abc import Iterable

from kombu.exceptions import BatchPublishError, OperationalError

log = logging.getLogger(__name__)


def queue_each(task, calls: Iterable[tuple]) -> None:
    """Queue ``task`` once with each argument tuple of ``calls``, in one round trip.

    A failing call is logged and the others go on; a broker fault stops the batch and is
    logged, losing nothing: tasks are idempotent and the next scan finds their work again.
    """
    calls = list(calls)
    if not calls:
        return
    if task.app.conf.task_always_eager:
        for args in calls:
            _send(task, args)
        return
    try:
        with task.app.producer_or_acquire() as producer, producer.batch():
            options = {}
            for args in calls:
                if _send(task, args, BROKER_FAULTS, producer=producer, **options):
                    options = ONLY_BUFFERED
    except BROKER_FAULTS:
        log.exception(
            "queueing %d %s tasks failed; the next scan finds their work again",
            len(calls),
            task.name,
        )


# After the first call has declared the queue, the rest only add to the pipeline.
ONLY_BUFFERED = {"declare": [], "retry": False}

BROKER_FAULTS = (OperationalError, BatchPublishError)


def _send(task, args: tuple, stop_on: tuple[type[Exception], ...] = (), **options) -> bool:
    """Queue ``task`` with ``args``; say whether it went. Only ``stop_on`` is raised."""
    try:
        # The arguments are short ids and timestamps: plain repr() is enough.
        task.apply_async(args, argsrepr=repr(args), kwargsrepr="{}", **options)
    except stop_on:
        raise
    except Exception:
        log.exception("%s of %s failed", task.name, args[0])
        return False
    return True
