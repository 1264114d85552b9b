"""Which language a player reads: the one place that decides.

A player's own choice wins, else the game's language. Emails are built by workers as well
as web processes, so they ask here rather than read the request's language.
"""

from __future__ import annotations

from django.conf import settings

from accounts.models import User
from games.models import Game, Seat


def known(code: str | None) -> str | None:
    """``code`` when it is a language this site speaks, else None."""
    return code if code and any(code == known for known, _name in settings.LANGUAGES) else None


def language_for(seat: Seat) -> str:
    """The language ``seat``'s player reads (reads ``seat.user`` and ``seat.game``)."""
    account = seat.user.language if seat.user_id else ""
    return known(account) or known(seat.language) or language_of(seat.game)


def language_of(game: Game) -> str:
    """The game's language, the one its creator chose."""
    return known(game.language) or settings.LANGUAGE_CODE


def language_for_address(address: str, game: Game | None = None, asked_in: str = "") -> str:
    """The language of an email to ``address`` not about a seat of theirs: their account's,
    else the one they asked in, else the game's, else the site's."""
    account = User.objects.filter(email__iexact=address).values_list("language", flat=True).first()
    if known(account):
        return account
    if known(asked_in):
        return asked_in
    return language_of(game) if game is not None else settings.LANGUAGE_CODE
