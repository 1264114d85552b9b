from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.urls import reverse

from accounts.models import User
from games import rules
from games.links import seat_url
from games.models import Game
from games.services import SeatSpec, create_game, start_game

DEMO_EMAIL = "demo@example.com"
# For /admin/ only: players sign in by emailed link, and the demo's link arrives in the
# local mailbox.
DEMO_PASSWORD = "demo"
DEMO_TITLE = "Demo game"
# Named like people: a seat called "You" reads "You (you)" to the others.
DEMO_PLAYERS = [("Dana", DEMO_EMAIL), ("Ada", "ada@example.com"), ("Grace", "grace@example.com")]


class Command(BaseCommand):
    help = (
        "Start the demo game on the local development copy (or find the one already "
        "running) and say how to open it."
    )

    def add_arguments(self, parser):
        parser.add_argument("--board", default="transamerica")

    def handle(self, *args, board: str, **options):
        if not settings.DEBUG:
            # It creates an account with a published password.
            raise CommandError("The demo is for local development only (DEBUG is off).")

        user = User.objects.filter(email=DEMO_EMAIL).first()
        if user is None:
            user = User.objects.create_superuser(DEMO_EMAIL, DEMO_PASSWORD, name="Dana")

        game = (
            Game.objects.filter(created_by=user, title=DEMO_TITLE, board=board)
            .exclude(status=Game.Status.FINISHED)
            .order_by("-pk")
            .first()
        )
        if game is None:
            players = [SeatSpec(name, email) for name, email in DEMO_PLAYERS]
            players[0] = SeatSpec(*DEMO_PLAYERS[0], user=user)
            game = create_game(board, None, players, created_by=user)
            Game.objects.filter(pk=game.pk).update(title=DEMO_TITLE)
            game = start_game(game)
            found = "is ready"
        else:
            found = "is still running"

        site = settings.SITE_URL
        admin_url = site + reverse("admin:games_game_change", args=[game.pk])
        self.stdout.write(
            f"{DEMO_TITLE} ({rules.get_board(board).title}, {len(DEMO_PLAYERS)} players) "
            f"{found}.\n"
            f"Play Dana's seat (no sign-in needed): {seat_url(game.seats.get(position=0))}\n"
            f"Emails: {site}{reverse('notifications:mailbox')}\n"
            f"Sign in as {DEMO_EMAIL} at {site}{reverse('accounts:login')}: the sign-in "
            "link arrives in the mailbox above.\n"
            f"The admin: {admin_url} ({DEMO_EMAIL}, password {DEMO_PASSWORD!r}: the "
            "password is for /admin/ only)."
        )
        if settings.RAILMAIL_INBOUND_DOMAIN:
            port = settings.RAILMAIL_RECEIVER_PORT
            self.stdout.write(
                f"Replies: answer an email in the mailbox at its Reply-To address "
                f"(reply+...@{settings.RAILMAIL_INBOUND_DOMAIN}) through the SMTP server "
                f"127.0.0.1:{port}, from the seat's address; the README shows how."
            )
