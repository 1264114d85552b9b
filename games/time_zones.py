"""Which time zone a player reads times in: the one place that decides.

A player's own choice first (their account's), else the zone of the game, chosen by its
creator; UTC when neither names a zone this system knows.
"""

from __future__ import annotations

import zoneinfo

from games.models import Game, Seat


def zone(name: str | None) -> zoneinfo.ZoneInfo:
    """The zone called ``name``, or UTC for an empty or unknown name."""
    try:
        return zoneinfo.ZoneInfo(name or "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def zone_name_for(account_zone: str | None, game: Game) -> str:
    """The zone a seat's player reads times in, from their account's zone (if any)."""
    return zone(account_zone or game.time_zone).key


def zone_for(seat: Seat) -> zoneinfo.ZoneInfo:
    """The zone ``seat``'s player reads times in (reads ``seat.user`` and ``seat.game``)."""
    return zone(zone_name_for(getattr(seat.user, "timezone", ""), seat.game))
