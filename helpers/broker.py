"""Queueing many small Celery tasks at once, over one connection to the broker."""

import logging
from collections.abc import Iterable, Sequence
from itertools import zip_longest

from kombu.exceptions import BatchPublishError, OperationalError

log = logging.getLogger(__name__)


def queue_each(task, calls: Iterable[tuple], countdowns: Sequence[float] = ()) -> None:
    """Queue ``task`` once with each argument tuple of ``calls``, in one round trip; the
    call at index i waits ``countdowns[i]`` wall seconds on the broker, if given.

    Run in-process (no broker), a countdown would run its call at once: such a call is
    left to the next scan, which finds it again when it is due.
    A failing call is logged and the others go on; a broker fault stops the batch and is
    logged, losing nothing: tasks are idempotent and the next scan finds their work again.
    """
    eager = task.app.conf.task_always_eager
    calls = [
        (args, countdown)
        for args, countdown in zip_longest(calls, countdowns, fillvalue=0.0)
        if not (eager and countdown)
    ]
    if not calls:
        return
    if eager:
        for args, _countdown in calls:
            _send(task, args)
        return
    try:
        with task.app.producer_or_acquire() as producer, producer.batch():
            declared = False
            for args, countdown in calls:
                options = dict(ONLY_BUFFERED) if declared else {}
                if countdown:
                    options["countdown"] = countdown
                sent = _send(task, args, BROKER_FAULTS, producer=producer, **options)
                declared = declared or sent
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
