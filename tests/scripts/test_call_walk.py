"""scripts/call-walk: the modules a call reaches and its climbs back up through the layers,
on a small made-up project whose answer is known."""

import subprocess
import sys
from pathlib import Path
from textwrap import dedent

from scripts.layering import ROOT

SCRIPT = ROOT / "scripts" / "call-walk"

# A view (outer layer) with a decorator from games; a write path behind a package's
# re-export, calling a method of a class it names, whose base class calls a model's method
# through an annotated parameter; a signal sent on commit; receivers in notifications (one
# connected in apps.ready), a post_save receiver, a Celery task that is only queued, a
# parameter that shadows an imported function, and modules nothing calls.
PROJECT = {
    "helpers/text.py": """
        def shout(text):
            return text.upper()
    """,
    "games/signals.py": """
        from django.dispatch import Signal

        moved = Signal()
        looked = Signal()
    """,
    "games/models.py": """
        from django.db import models

        class Game(models.Model):
            def finish(self):
                return None
    """,
    "games/links.py": """
        from functools import wraps

        from games.signals import looked
        from helpers import text

        def seat_link(view):
            @wraps(view)
            def wrapper(request):
                looked.send(sender=None, who=text.shout("seat"))
                return view(request)

            return wrapper
    """,
    "games/services/__init__.py": """
        from .moves import submit
    """,
    "games/services/other.py": """
        def forget():
            return None
    """,
    "games/services/books.py": """
        from games.models import Game

        class Book:
            def check(self, game: "Game"):
                game.finish()
    """,
    "games/services/moves.py": """
        from django.db import transaction

        from games.models import Game
        from games.services.books import Book
        from games.services.other import forget
        from games.signals import moved


        class Ledger(Book):
            def add(self, game):
                self.check(game)


        def submit(game, forget=None):
            ledger = Ledger()
            ledger.add(game)
            if forget:
                forget()  # the parameter, not games.services.other.forget
            transaction.on_commit(lambda: moved.send(sender=Game, game=game))
    """,
    "games/views/play.py": """
        from games import services
        from games.links import seat_link
        from helpers.clock import Clock

        clock = Clock()

        @seat_link
        def seat(request):
            clock.now()
            return services.submit(request.game)
    """,
    "helpers/clock.py": """
        class Clock:
            def now(self):
                return 0
    """,
    "notifications/models.py": """
        from django.db import models

        class Message(models.Model):
            pass
    """,
    "notifications/receivers.py": """
        from django.dispatch import receiver

        from games.signals import moved
        from notifications.models import Message

        @receiver(moved, dispatch_uid="notifications.on_moved")
        def on_moved(sender, game, **kwargs):
            Message.objects.create(game=game)

        def on_look(sender, who, **kwargs):
            return who
    """,
    "notifications/delivery.py": """
        from django.db import transaction
        from django.db.models.signals import post_save
        from django.dispatch import receiver

        from helpers.broker import queue_each
        from notifications.models import Message
        from notifications.tasks import deliver

        @receiver(post_save, sender=Message)
        def queue(sender, instance, **kwargs):
            transaction.on_commit(lambda: queue_each(deliver, [(instance.pk,)]))
    """,
    "helpers/broker.py": """
        def queue_each(task, calls):
            for args in calls:
                task.delay(*args)
    """,
    "notifications/tasks.py": """
        from celery import shared_task

        @shared_task
        def deliver(message_id):
            return message_id
    """,
    "notifications/apps.py": """
        from django.apps import AppConfig

        class NotificationsConfig(AppConfig):
            name = "notifications"

            def ready(self):
                from games.signals import looked
                from notifications import receivers

                looked.connect(receivers.on_look)
    """,
    "notifications/unused.py": """
        from games.views.play import seat

        def never():
            return seat(None)
    """,
}


def walk(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--root", str(root), *args],
        capture_output=True,
        text=True,
    )


def made_up_project(root: Path) -> Path:
    for name, text in PROJECT.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dedent(text))
        for package in path.relative_to(root).parents:
            (root / package / "__init__.py").touch()
    return root


def listed(output: str, heading: str) -> list[str]:
    """The lines under ``heading:`` up to the next heading, first words only."""
    lines = output.splitlines()
    start = lines.index(heading + ":") + 1
    found = []
    for line in lines[start:]:
        if not line.startswith("  "):
            break
        found.append(line.split()[0] if heading == "modules entered" else line.strip())
    return found


def test_it_counts_the_modules_a_call_enters_and_its_climbs(tmp_path):
    done = walk(
        made_up_project(tmp_path), "--verbose", "--why", "games.models", "games.views.play.seat"
    )
    assert done.returncode == 0, done.stderr
    summary = done.stdout.splitlines()[0]
    assert summary.startswith("games.views.play.seat: 10 modules entered, 2 climbs back up")
    assert listed(done.stdout, "modules entered") == [
        "games.links",  # the decorator
        "games.models",  # game.finish(), game annotated "Game"
        "games.services.books",  # Ledger's base class: self.check()
        "games.services.moves",  # services.submit, re-exported by games.services
        "games.views.play",
        "helpers.broker",  # queue_each(deliver, ...): deliver is queued, not called
        "helpers.clock",  # clock.now(), clock a module-level Clock()
        "helpers.text",  # text.shout inside the decorator's wrapper
        "notifications.delivery",  # post_save of Message.objects.create
        "notifications.receivers",  # moved.send on commit; looked.connect in apps.ready
    ]
    assert listed(done.stdout, "climbs back up") == [
        "games.links.seat_link -> notifications.receivers.on_look  [games -> notifications]",
        "games.services.moves.submit -> notifications.receivers.on_moved  [games -> notifications]",
    ]
    assert listed(done.stdout, "why games.models") == [
        "games.views.play.seat",
        "games.services.moves.submit",
        "games.services.moves.Ledger.add",
        "games.services.books.Book.check",
        "games.models.Game.finish",
    ]
    edges = listed(done.stdout, "call edges")
    assert "games.services.moves.Ledger.add -> games.services.books.Book.check" in edges
    assert f"{len(edges)} call edges)" in summary


def test_a_branch_skipped_is_not_followed(tmp_path):
    done = walk(
        made_up_project(tmp_path), "games.views.play.seat", "--skip", "games.links.seat_link"
    )
    entered = listed(done.stdout, "modules entered")
    assert "games.links" not in entered and "helpers.text" not in entered
    assert "notifications.receivers" in entered  # reached through the write path still
    assert done.stdout.startswith("games.views.play.seat: 8 modules entered, 1 climbs back up")


def test_an_unknown_start_is_a_clear_error(tmp_path):
    done = walk(made_up_project(tmp_path), "games.views.play.nothing")
    assert done.returncode != 0
    assert "no project function games.views.play.nothing" in done.stderr
