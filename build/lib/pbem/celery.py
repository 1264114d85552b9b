"""The Celery app, configured from Django's settings (the CELERY_* names)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pbem.settings")

app = Celery("pbem")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
