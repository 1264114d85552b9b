from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    """Every email Railmail sends: the outbox, delivery, reminders, digests, unsubscribes."""

    name = "notifications"
