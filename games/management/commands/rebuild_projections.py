from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from games.derived import snapshots
from games.derived.projection import differences, project
from games.models import Game
from games.services.event_log import seats_at_table
from helpers import clock_source


class Command(BaseCommand):
    help = (
        "Recompute every game's projection columns from its events, report each game "
        "whose stored projection differed, and fix it."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--check",
            action="store_true",
            help="Only report the games that differ, and exit with status 1 if any do.",
        )

    def handle(self, *args, check: bool, **options):
        differing = 0
        for pk in Game.objects.order_by("pk").values_list("pk", flat=True):
            # One transaction per game, holding the row lock the write path takes,
            # so that a move played meanwhile is never overwritten by a stale result.
            with transaction.atomic():
                game = Game.objects.select_for_update().get(pk=pk)
                last_event = game.events.order_by("seq").last()
                if last_event is None:
                    self.stderr.write(f"Game {pk}: has no events, skipped")
                    differing += 1
                    continue
                # Replayed in full, never from a cached snapshot: this checks the columns
                # (the log's digest among them) against the log itself.
                after = snapshots.EMPTY.then(game.engine_events())
                seats = seats_at_table(game)
                projection = project(
                    game, after.state, last_event, seats, clock=after.clock, unwritten=()
                )
                projection["log_digest"] = after.digest
                changed = differences(game, projection)
                if not changed:
                    continue
                differing += 1
                detail = ", ".join(
                    f"{name} {stored!r} -> {expected!r}"
                    for name, (stored, expected) in changed.items()
                )
                self.stdout.write(f"Game {pk}: {detail}")
                if not check:
                    for name in changed:
                        setattr(game, name, projection[name])
                    fields = list(changed)
                    if "deadline" in changed:
                        # The reminder scan's schedule follows the deadline.
                        later = [m for m in game.reminder_moments() if m > clock_source.now()]
                        game.remind_at = later[0] if later else None
                        fields.append("remind_at")
                    game.save(update_fields=fields)

        verb = "differ" if check else "differed and were fixed"
        self.stdout.write(f"{differing} game(s) {verb}.")
        if check and differing:
            raise CommandError("Some stored projections differ from their events.", returncode=1)
