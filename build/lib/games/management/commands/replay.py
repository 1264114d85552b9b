import json
import sys

from django.core.management.base import BaseCommand, CommandError

from games import rules


class Command(BaseCommand):
    help = (
        "Replay a game record (pbem-game-record/1), checking every event. Prints the "
        "scores and exits 0, or names the first wrong event and exits 1."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="the record's JSON file, or - for standard input")

    def handle(self, *args, file: str, **options):
        record = self.read(file)
        try:
            state = rules.replay_record(record)
        except rules.InvalidRecord as error:
            raise CommandError(f"{file}: not a readable game record: {error}") from None
        except rules.InvalidEvent as error:
            raise CommandError(f"{file}: event {error.seq} is wrong: {error.message}") from None

        names = {
            seat["seat"]: seat.get("name") or f"Seat {seat['seat']}" for seat in record["seats"]
        }
        if state.is_over:
            self.stdout.write(f"Game over after round {state.round}. Final scores:")
        else:
            self.stdout.write(f"The game is not over (round {state.round}). Scores so far:")
        width = max(len(name) for name in names.values())
        for seat, score in enumerate(state.scores):
            mark = "  (winner)" if seat in state.winners else ""
            self.stdout.write(f"  {names.get(seat, f'Seat {seat}'):<{width}}  {score:>3}{mark}")

    def read(self, file: str) -> dict:
        try:
            if file == "-":
                return json.load(sys.stdin)
            with open(file, encoding="utf-8") as handle:
                return json.load(handle)
        except OSError as error:
            raise CommandError(f"cannot read {file}: {error.strerror}") from None
        except json.JSONDecodeError as error:
            raise CommandError(f"{file} is not JSON: {error}") from None
