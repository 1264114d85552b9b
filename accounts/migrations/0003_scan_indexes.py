"""Partial indexes for the minute scans: accounts on vacation, digest readers."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_preferences_and_vacation"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="user",
            index=models.Index(
                condition=models.Q(("vacation_until__isnull", False)),
                fields=["vacation_until"],
                name="accounts_user_on_vacation",
            ),
        ),
        migrations.AddIndex(
            model_name="user",
            index=models.Index(
                condition=models.Q(("email_mode", "daily_digest")),
                fields=["id"],
                name="accounts_user_digest_readers",
            ),
        ),
    ]
