"""Bringing a game record (``pbem-game-record/1``) back in as a game of this server.

Operators use it to move a game from one server to another and to seed demos. A record
can be imported when the game it describes is finished, or still running with every
hand present; a record exported while a round runs hides the hands (``null``) and cannot
be: the game could not go on without them.

The game is made through the write path, as any other: ``services.create_game`` with the
record's board, options and seats (names from the record, email addresses from the
caller or none), then ``services.append_events`` with the record's events, which the
engine checks again one by one. So the projection, the next deal of a game between
rounds, and the emails the events cause (to the seats given an address) follow as for
moves played here. Nothing is created when the record cannot be imported.

What is kept: every event, in order, with the keys it has, those the engine does not
know included, and unknown event types too (readers ignore them), so exporting the game
gives back the record. Two things are this server's own: the numbering, which follows
its own ``game_created`` event (a record without one moves up by one), and a bare
``game_ended`` (the format leaves its contents open), stored with the final scores and
winners, as the engine writes it, since pages and emails read them.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction

from games import rules, services
from games.models import Game, Seat

NAME_LENGTH = Seat._meta.get_field("name").max_length


class CannotImport(ValueError):
    """A record that is readable but cannot become a game here."""


def import_record(record: dict, emails: Mapping[int, str] | None = None, created_by=None) -> Game:
    """Create a game from ``record``; ``emails`` gives seats (by number) their address.

    Raises ``rules.InvalidRecord`` for a malformed document, ``rules.InvalidEvent`` for
    an event the rules refuse, and ``CannotImport`` for a record with hidden hands or
    seats that cannot be made.
    """
    log = rules.read_record(record)
    refuse_hidden_hands(log)
    state = rules.replay_record(record)
    names = rules.seat_names(record)
    emails = dict(emails or {})
    check_seats(names, emails)
    events = [engine_form(event, state) for event in log[1:]]
    seats = [
        services.SeatSpec(name, emails.get(position, "")) for position, name in enumerate(names)
    ]
    with transaction.atomic():
        game = services.create_game(record["board"], state.options, seats, created_by=created_by)
        if events:
            game = services.append_events(game, events)
    return game


def refuse_hidden_hands(log: list[dict]) -> None:
    for event in log:
        if event.get("type") == rules.ROUND_STARTED and isinstance(event.get("hands"), list):
            hidden = [seat for seat, hand in enumerate(event["hands"]) if hand is None]
            if hidden:
                seats = ", ".join(map(str, hidden))
                raise CannotImport(
                    f"event {event.get('seq')} hides the hands of seat(s) {seats} in round "
                    f"{event.get('round')}: a running game can be imported only from a record "
                    "with every hand (a finished game's record has them all)"
                )


def check_seats(names: list[str], emails: dict[int, str]) -> None:
    for position, name in enumerate(names):
        if len(name) > NAME_LENGTH:
            raise CannotImport(f"seat {position}'s name is longer than {NAME_LENGTH} characters")
    for position, address in emails.items():
        if not 0 <= position < len(names):
            raise CannotImport(
                f"there is no seat {position}: the record has seats 0 to {len(names) - 1}"
            )
        try:
            validate_email(address)
        except ValidationError:
            raise CannotImport(f"{address!r} (seat {position}) is not an email address") from None


def engine_form(event: dict, final: rules.GameState) -> dict:
    """``event`` as this server appends it: numbered by the log, a bare ``game_ended``
    completed (only the game's last scores can follow the last ``round_scored``)."""
    event = {key: value for key, value in event.items() if key != "seq"}
    if event["type"] == rules.GAME_ENDED:
        event.setdefault("scores", list(final.scores))
        event.setdefault("winners", list(final.winners))
    return event
