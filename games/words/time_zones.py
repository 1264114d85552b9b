"""Which time zone a player reads times in: the one place that decides.

A player's own choice first (their account's), else the zone their browser reported on
their board page, else the zone of the game, chosen by its creator; UTC when none names a
zone this system knows.
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


def zone_name_for(account_zone: str | None, game: Game, browser_zone: str = "") -> str:
    """The zone a seat's player reads times in: their account's, their browser's, the
    game's."""
    for name in (account_zone, browser_zone, game.time_zone):
        if name and zone(name).key == name:
            return name
    return "UTC"


def zone_for(seat: Seat) -> zoneinfo.ZoneInfo:
    """The zone ``seat``'s player reads times in (reads ``seat.user`` and ``seat.game``)."""
    account = getattr(seat.user, "timezone", "")
    return zone(zone_name_for(account, seat.game, seat.browser_time_zone))
