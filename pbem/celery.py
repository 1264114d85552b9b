"""The Celery app, configured from Django's settings (the CELERY_* names)."""

import os
import time

from celery import Celery
from celery.signals import task_postrun, task_prerun, worker_init

from pbem.logs import log_task

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pbem.settings")

app = Celery("pbem")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

_started: dict[str, float] = {}


@task_prerun.connect(dispatch_uid="pbem.task_started")
def task_started(task_id: str, **kwargs) -> None:
    _started[task_id] = time.perf_counter()


@task_postrun.connect(dispatch_uid="pbem.task_finished")
def task_finished(task_id: str, task, args, state: str | None = None, **kwargs) -> None:
    """One structured log line per task (pbem.logs)."""

    started = _started.pop(task_id, time.perf_counter())
    log_task(
        task.name, task_id, tuple(args or ()), state or "unknown", time.perf_counter() - started
    )


@worker_init.connect(dispatch_uid="pbem.warm")
def warm(**kwargs) -> None:
    """Load what every email needs before the first task (a prefork pool's processes
    inherit it), not while sending it."""
    from django.apps import apps

    if not apps.ready:  # Celery's Django fixup has set it up before this signal
        import django

        django.setup()
    from notifications.warm import warm as load

    load()
