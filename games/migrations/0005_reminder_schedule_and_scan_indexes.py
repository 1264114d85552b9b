"""Game.remind_at, the reminder scan's schedule (set for the games running now), and the
partial indexes the minute scans read."""

from datetime import timedelta

from django.db import migrations, models
from django.utils import timezone


def schedule_reminders(apps, schema_editor):
    # As Game.reminder_moments() (a historical model has no methods): the next reminder
    # of each running turn that is still to come.
    Game = apps.get_model("games", "Game")
    now = timezone.now()
    running = Game.objects.filter(status="active", deadline__gt=now, time_per_move__isnull=False)
    for game in running.iterator():
        moments = [
            game.deadline - timedelta(hours=h)
            for h in game.reminder_hours
            if timedelta(hours=h) < game.time_per_move
        ]
        later = [moment for moment in moments if moment > now]
        if later:
            Game.objects.filter(pk=game.pk).update(remind_at=min(later))


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0004_game_log_digest"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="remind_at",
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.AddIndex(
            model_name="event",
            index=models.Index(
                condition=models.Q(("type__in", ("clock_paused", "clock_resumed"))),
                fields=["game", "seq"],
                name="games_event_clock",
            ),
        ),
        migrations.AddIndex(
            model_name="game",
            index=models.Index(
                condition=models.Q(("remind_at__isnull", False)),
                fields=["remind_at"],
                name="games_game_remind_due",
            ),
        ),
        migrations.RunPython(schedule_reminders, migrations.RunPython.noop, elidable=True),
    ]
