"""On PostgreSQL, make the database itself refuse to change or remove an event.

The model refuses too, but only for code that goes through the ORM; this holds for raw
SQL, other programs and slips in a psql session. Other databases get no trigger.
TRUNCATE is left alone: Django's test runner empties tables with it.
"""

from django.db import migrations

CREATE = """
CREATE FUNCTION games_event_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'events are append-only: % on games_event is not allowed', TG_OP
        USING ERRCODE = 'restrict_violation';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER games_event_append_only
    BEFORE UPDATE OR DELETE ON games_event
    FOR EACH ROW EXECUTE FUNCTION games_event_append_only();
"""

DROP = """
DROP TRIGGER IF EXISTS games_event_append_only ON games_event;
DROP FUNCTION IF EXISTS games_event_append_only();
"""


def create_trigger(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        # No params: the % in RAISE is PL/pgSQL's, not a placeholder.
        schema_editor.execute(CREATE, params=None)


def drop_trigger(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0001_initial"),
    ]

    operations = [
        migrations.RunPython(create_trigger, drop_trigger, elidable=False),
    ]
