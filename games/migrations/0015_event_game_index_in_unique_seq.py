"""Event.game loses its own index: the unique (game, seq) serves every lookup by game.

Only the index is dropped. Django's AlterField would also drop and re-add the foreign key,
which checks every row of the log again under a lock."""

import django.db.models.deletion
from django.db import migrations, models

INDEX = "games_event_game_id_afa0391c"


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0014_languages"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="event",
                    name="game",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="events",
                        to="games.game",
                    ),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    f'DROP INDEX IF EXISTS "{INDEX}"',
                    reverse_sql=f'CREATE INDEX "{INDEX}" ON "games_event" ("game_id")',
                ),
            ],
        ),
    ]
