"""Muting a game: its player hears of it only when it is their turn.

A muted seat gets no round results, game results or news of seats changing hands, by
email or any other channel; its turn notices, the reminders before its deadline, a
nudge and answers to its own replies still come. It writes only the seat's row; a seat
that changes hands starts unmuted (games.services.substitutes).
"""

from games.models import Seat


def set_muted(seat: Seat, muted: bool) -> None:
    """Mute (or unmute) ``seat``'s notices of its game."""
    Seat.objects.filter(pk=seat.pk).update(notices_muted=muted)
    seat.notices_muted = muted
