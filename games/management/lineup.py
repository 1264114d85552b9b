"""The ``--bots`` line-up of the commands that seat bots: simulate and tournament."""

from __future__ import annotations

from django.core.management.base import CommandError

from games.bots import BOTS


def parse_lineup(text: str, players: int, known: dict | None = None) -> list[str]:
    """The bot names of a comma-separated line-up, one per seat, checked against ``BOTS``.

    Raises CommandError naming the known bots for an unknown name, or for a line-up that
    seats a different number of bots than ``players``, so that a typo stops the command
    before it plays anything.
    """
    known = BOTS if known is None else known
    lineup = [name.strip() for name in text.split(",") if name.strip()]
    unknown = sorted(set(lineup) - set(known))
    if unknown:
        raise CommandError(f"no bot called {', '.join(unknown)}: the bots are {', '.join(known)}")
    if len(lineup) != players:
        raise CommandError(f"--bots names {len(lineup)} bots for {players} players")
    return lineup
