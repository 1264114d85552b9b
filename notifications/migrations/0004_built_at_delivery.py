import secrets

from django.db import migrations, models

import notifications.models


def give_each_row_a_token(apps, schema_editor):
    Message = apps.get_model("notifications", "Message")
    for row in Message.objects.filter(token__isnull=True).only("pk"):
        Message.objects.filter(pk=row.pk).update(token=secrets.token_hex(16))


class Migration(migrations.Migration):
    dependencies = [("notifications", "0003_merge_stuck_reported_and_indexes")]

    operations = [
        migrations.AddField(
            model_name="message",
            name="facts",
            field=models.JSONField(
                blank=True, default=dict, help_text="What the email is about, for building it."
            ),
        ),
        # In three steps: a unique column cannot be added with one default for every row.
        migrations.AddField(
            model_name="message",
            name="token",
            field=models.CharField(max_length=32, null=True, editable=False),
        ),
        migrations.RunPython(give_each_row_a_token, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="message",
            name="token",
            field=models.CharField(
                default=notifications.models.new_message_token,
                editable=False,
                max_length=32,
                unique=True,
            ),
        ),
        migrations.AddField(
            model_name="message",
            name="claim",
            field=models.CharField(blank=True, editable=False, max_length=32),
        ),
        migrations.AlterField(
            model_name="message", name="subject", field=models.CharField(blank=True, max_length=250)
        ),
        migrations.AlterField(
            model_name="message", name="body_text", field=models.TextField(blank=True)
        ),
        migrations.AlterField(
            model_name="message",
            name="status",
            field=models.CharField(
                choices=[
                    ("pending", "Waiting to be sent"),
                    ("sending", "Being sent"),
                    ("sent", "Sent"),
                    ("failed", "Failed"),
                    ("suppressed", "Not sent: mail to the address is stopped"),
                    ("dropped", "Not sent: no longer needed"),
                ],
                default="pending",
                max_length=16,
            ),
        ),
    ]
