import secrets

from django.db import migrations, models

import games.models


def give_each_game_a_token(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    for game in Game.objects.filter(thread_token__isnull=True).only("pk"):
        Game.objects.filter(pk=game.pk).update(thread_token=secrets.token_hex(16))


class Migration(migrations.Migration):
    dependencies = [("games", "0007_seat_bot_level_help_text")]

    operations = [
        # In three steps: a unique column cannot be added with one default for every row.
        migrations.AddField(
            model_name="game",
            name="thread_token",
            field=models.CharField(max_length=32, null=True, editable=False),
        ),
        migrations.RunPython(give_each_game_a_token, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="game",
            name="thread_token",
            field=models.CharField(
                default=games.models.new_thread_token, editable=False, max_length=32, unique=True
            ),
        ),
        migrations.AddField(
            model_name="seat",
            name="seen_version",
            field=models.PositiveIntegerField(
                default=0, help_text="The game version the player last saw on their board page."
            ),
        ),
    ]
