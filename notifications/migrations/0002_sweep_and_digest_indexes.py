"""Partial indexes for the outbox sweep (rows stuck mid-send) and the digest scan."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0001_outbox_and_suppressions"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="message",
            index=models.Index(
                condition=models.Q(("status", "sending")),
                fields=["claimed_at"],
                name="notifications_message_sending",
            ),
        ),
        migrations.AddIndex(
            model_name="message",
            index=models.Index(
                condition=models.Q(("kind", "digest")),
                fields=["event"],
                name="notifications_message_digests",
            ),
        ),
    ]
