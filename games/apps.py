from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"

    def ready(self) -> None:
        from games import autoplay
        from games.signals import events_appended

        events_appended.connect(autoplay.on_events_appended, dispatch_uid="games.autoplay")
