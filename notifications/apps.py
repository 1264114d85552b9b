from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    """Every email Railmail sends: the outbox, delivery, reminders, digests, unsubscribes."""

    name = "notifications"

    def ready(self) -> None:
        from notifications import (  # noqa: F401  (connects the signal receivers)
            decline_mail,
            receivers,
        )
