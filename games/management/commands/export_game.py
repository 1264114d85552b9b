import json

from django.core.management.base import BaseCommand, CommandError

from games.models import Game
from games.pages import replay_page


class Command(BaseCommand):
    help = (
        "Print a game's record (pbem-game-record/1) as JSON. While the game runs, every "
        "seat's hand of the current round is hidden, unless --as-seat shows that seat's own."
    )

    def add_arguments(self, parser):
        parser.add_argument("game_id", type=int, help="the game's number")
        parser.add_argument(
            "--as-seat",
            type=int,
            metavar="N",
            help="export as seat N (from 0) sees it: its own hand is shown",
        )

    def handle(self, *args, game_id: int, as_seat: int | None, **options):
        try:
            game = Game.objects.get(pk=game_id)
        except Game.DoesNotExist:
            raise CommandError(f"There is no game {game_id}.") from None
        seats = game.seats.count()
        if as_seat is not None and not 0 <= as_seat < seats:
            raise CommandError(f"Game {game_id} has seats 0 to {seats - 1}, not {as_seat}.")
        record = replay_page.record(game, viewer=as_seat)
        self.stdout.write(json.dumps(record, indent=1, ensure_ascii=False))
