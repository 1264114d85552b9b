from django.core.management.base import BaseCommand, CommandError

from games import rules
from games.management.record_files import read_record_file


class Command(BaseCommand):
    help = (
        "Replay a game record (pbem-game-record/1), checking every event. Prints the "
        "scores and exits 0, or names the first wrong event and exits 1."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="the record's JSON file, or - for standard input")

    def handle(self, *args, file: str, **options):
        record = read_record_file(file)
        try:
            state = rules.replay_record(record)
            names = rules.seat_names(record)
        except rules.InvalidRecord as error:
            raise CommandError(f"{file}: not a readable game record: {error}") from None
        except rules.InvalidEvent as error:
            raise CommandError(f"{file}: event {error.seq} is wrong: {error.message}") from None

        if state.is_over:
            self.stdout.write(f"Game over after round {state.round}. Final scores:")
        else:
            self.stdout.write(f"The game is not over (round {state.round}). Scores so far:")
        width = max(len(name) for name in names)
        for seat, score in enumerate(state.scores):
            mark = "  (winner)" if seat in state.winners else ""
            self.stdout.write(f"  {names[seat]:<{width}}  {score:>3}{mark}")
