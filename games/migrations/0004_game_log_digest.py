"""Game.log_digest: the digest of each game's event log (games.projection.log_digest),
filled in for the games already recorded."""

import hashlib
import json

from django.db import migrations, models


def digest_of(events) -> str:
    # A frozen copy of games.projection.log_digest: the two must give the same digest.
    digest = ""
    for event in events:
        text = json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        digest = hashlib.sha256(f"{digest}\n{text}".encode()).hexdigest()
    return digest


def fill(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    Event = apps.get_model("games", "Event")
    for pk in Game.objects.order_by("pk").values_list("pk", flat=True).iterator():
        rows = Event.objects.filter(game_id=pk).order_by("seq").values_list("seq", "type", "data")
        events = ({"type": kind, "seq": seq, **data} for seq, kind, data in rows)
        Game.objects.filter(pk=pk).update(log_digest=digest_of(events))


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0003_reminders_timeouts_and_bot_seats"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="log_digest",
            field=models.CharField(blank=True, editable=False, max_length=64),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop, elidable=True),
    ]
