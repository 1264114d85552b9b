"""Run by test_sqlite.py in a process of its own, on a file-based SQLite database:
sign-in requests from several threads at once, each thread with its own connection, as
the threads of `manage.py runserver` do. Prints the status of every request as JSON."""

import json
import os
import sys
import threading

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pbem.settings")
django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

THREADS, REQUESTS = int(sys.argv[1]), int(sys.argv[2])

call_command("migrate", verbosity=0)
setup_test_environment()  # the test client's ALLOWED_HOSTS and a locmem email backend
barrier = threading.Barrier(THREADS, timeout=60)
statuses: list = []
lock = threading.Lock()


def sign_in(n: int) -> None:
    client = Client(raise_request_exception=False)
    barrier.wait()  # all threads start together
    for r in range(REQUESTS):
        response = client.post(
            "/accounts/login/",
            {"email": f"player{n}-{r}@example.org"},
            REMOTE_ADDR=f"10.1.{n}.{r}",
        )
        with lock:
            statuses.append(response.status_code)
    connection.close()


threads = [threading.Thread(target=sign_in, args=(n,)) for n in range(THREADS)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join(timeout=120)
print(json.dumps(statuses))
