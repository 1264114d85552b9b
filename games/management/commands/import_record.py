from django.core.management.base import BaseCommand, CommandError

from games import rules
from games.management.record_files import read_record_file
from games.services import record_import


def seat_address(text: str) -> tuple[int, str]:
    """``N=address`` from the command line."""
    number, sep, address = text.partition("=")
    if not sep or not number.strip().isdigit() or not address.strip():
        raise CommandError(f"--seat takes N=address (a seat number from 0), not {text!r}")
    return int(number), address.strip()


class Command(BaseCommand):
    help = (
        "Create a game from a game record (pbem-game-record/1): a finished game, or a "
        "running one whose hands are all in the record. Every event is checked again. "
        "Seat names come from the record; --seat gives a seat its email address (seats "
        "with an address get the emails the recorded events cause, as in play)."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="the record's JSON file, or - for standard input")
        parser.add_argument(
            "--seat",
            action="append",
            default=[],
            metavar="N=ADDRESS",
            help="seat N's (from 0) email address; repeat for more seats",
        )

    def handle(self, *args, file: str, seat: list[str], **options):
        record = read_record_file(file)
        emails = dict(seat_address(text) for text in seat)
        if len(emails) < len(seat):
            raise CommandError("--seat names a seat more than once")
        try:
            game = record_import.import_record(record, emails)
        except rules.InvalidRecord as error:
            raise CommandError(f"{file}: not a readable game record: {error}") from None
        except rules.InvalidEvent as error:
            raise CommandError(f"{file}: event {error.seq} is wrong: {error.message}") from None
        except record_import.CannotImport as error:
            raise CommandError(f"{file}: cannot import: {error}") from None
        state = "finished" if game.status == game.Status.FINISHED else f"round {game.round}"
        self.stdout.write(f"Imported as game {game.pk} ({state}, {game.version} events).")
