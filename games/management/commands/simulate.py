import json
import random

from django.core.management.base import BaseCommand, CommandError

from games import rules
from games.bots import BOTS, simulate
from games.management.lineup import parse_lineup


class Command(BaseCommand):
    help = "Play a whole game with the built-in bots and print its game record as JSON."

    def add_arguments(self, parser):
        parser.add_argument("--board", choices=rules.BOARD_NAMES, default="transamerica")
        parser.add_argument("--players", type=int, default=4, help="2 to 6 (default 4)")
        parser.add_argument("--seed", type=int, default=None, help="repeat a game exactly")
        parser.add_argument(
            "--bots",
            default=None,
            help=(
                "the line-up, one bot per seat, comma-separated (default: greedy in every "
                f"seat); bots: {', '.join(BOTS)}"
            ),
        )
        parser.add_argument(
            "--exclusive-tracks",
            type=int,
            default=0,
            help="coloured tracks per player and round (0 = off, 3 = the published variant)",
        )
        parser.add_argument(
            "--strict",
            action="store_true",
            help="cities count as joined only through the player's own start marker",
        )

    def handle(self, *args, board, players, seed, bots, exclusive_tracks, strict, **options):
        lineup = parse_lineup(bots, players) if bots is not None else ["greedy"] * players
        try:
            game_options = rules.Options(
                exclusive_tracks=exclusive_tracks, cities_must_join_start=strict
            )
            events = simulate(
                board, players, random.Random(seed), game_options, [BOTS[name] for name in lineup]
            )
        except ValueError as error:
            raise CommandError(str(error)) from None
        # The record says which bot played each seat: "Strong bot 1", "Greedy bot 2".
        names = [f"{name.capitalize()} bot {seat + 1}" for seat, name in enumerate(lineup)]
        self.stdout.write(json.dumps(rules.make_record(events, names), indent=1))
