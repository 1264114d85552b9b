from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.urls import reverse

from accounts.models import User
from games.links import seat_url
from games.services import SeatSpec, create_game, start_game

DEMO_EMAIL = "demo@example.com"
DEMO_PASSWORD = "demo"


class Command(BaseCommand):
    help = "Create and start a demo game on the local development copy, and say where to open it."

    def add_arguments(self, parser):
        parser.add_argument("--board", default="transamerica")

    def handle(self, *args, board: str, **options):
        if not settings.DEBUG:
            # It creates an account with a published password.
            raise CommandError("The demo is for local development only (DEBUG is off).")

        user = User.objects.filter(email=DEMO_EMAIL).first()
        if user is None:
            user = User.objects.create_superuser(DEMO_EMAIL, DEMO_PASSWORD, name="Demo player")

        game = create_game(
            board,
            options=None,
            players=[
                SeatSpec("You", DEMO_EMAIL, user=user),
                SeatSpec("Ada", "ada@example.com"),
                SeatSpec("Grace", "grace@example.com"),
            ],
            created_by=user,
        )
        game = start_game(game)

        admin_url = settings.SITE_URL + reverse("admin:games_game_change", args=[game.pk])
        self.stdout.write(
            f"Demo game {game.pk} ({board}, 3 seats, round {game.round}) is ready.\n"
            f"Play your seat: {seat_url(game.seats.get(position=0))}\n"
            f"The admin: {admin_url}\n"
            f"(log in as {DEMO_EMAIL} with the password {DEMO_PASSWORD!r})."
        )
