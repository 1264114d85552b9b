"""Bringing a game record (``pbem-game-record/1``) back in as a game of this server.

Operators use it to move games between servers and to seed demos. The game goes through
the write path like any other, so the engine checks every event again and the emails
follow. Every event and key is kept, so exporting gives back the record; a record with
hidden hands cannot be imported, since the game could not go on without them.
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

    Raises ``rules.InvalidRecord``, ``rules.InvalidEvent`` or ``CannotImport``.
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
    """``event`` as this server appends it: renumbered, a bare ``game_ended`` completed
    with the scores and winners that pages and emails read."""
    event = {key: value for key, value in event.items() if key != "seq"}
    if event["type"] == rules.GAME_ENDED:
        event.setdefault("scores", list(final.scores))
        event.setdefault("winners", list(final.winners))
    return event
