"""Signed links to a seat's board page.

A seat link signs the game, the position and the seat's ``link_nonce`` with a salt used
for nothing else; rotating the nonce revokes every older link. A link opens that one
seat's page: it never signs anyone into an account.

A fresh link (mailed on request) carries the ``pending_link_nonce`` and becomes current
on its first POST: so someone who knows a player's address can have fresh links mailed
to them, but cannot revoke the links the player uses.

A link's age plays no part, so its token carries no time (helpers.signing): the same seat
and nonce give the same link, in every email and page; links signed with the time, as
they were before, still open their seat.
"""

from dataclasses import dataclass

from django.conf import settings
from django.core import signing
from django.urls import reverse
from django.utils.crypto import constant_time_compare

from games.models import Game, Seat, new_link_nonce
from games.signals import seat_links_renewed
from helpers import signing as timeless

SALT = "games.links.seat"


class BadLink(signing.BadSignature):
    """A seat link that is "tampered", "missing" or "revoked" (``reason``); a revoked
    link keeps its ``seat``, so the page can offer to send a fresh one."""

    def __init__(self, reason: str, seat: Seat | None = None) -> None:
        super().__init__(f"bad seat link: {reason}")
        self.reason = reason
        self.seat = seat


def make_token(seat: Seat, nonce: str = "") -> str:
    """The signed token for ``seat``'s current link (or the link with ``nonce``)."""
    payload = {"g": seat.game_id, "s": seat.position, "n": nonce or seat.link_nonce}
    return timeless.dumps(payload, salt=SALT)


def seat_path(seat: Seat) -> str:
    """The path of ``seat``'s board page, signed."""
    return reverse("games:seat", args=[make_token(seat)])


def seat_url(seat: Seat) -> str:
    """The absolute signed link to ``seat``'s board page, as sent by email."""
    return settings.SITE_URL + seat_path(seat)


def play_again_url(seat: Seat) -> str:
    """The absolute signed link to the page where ``seat``'s player may play again: a
    page, whose button starts it."""
    return settings.SITE_URL + reverse("games:play_again", args=[make_token(seat)])


def url_with_nonce(seat: Seat, nonce: str) -> str:
    """The absolute link to ``seat`` with ``nonce`` (its current or its pending one)."""
    return settings.SITE_URL + reverse("games:seat", args=[make_token(seat, nonce)])


def fresh_seat_url(seat: Seat) -> str:
    """The absolute link with ``seat``'s pending nonce: the fresh link mailed on request."""
    if not seat.pending_link_nonce:
        raise ValueError(f"{seat} has no fresh link pending")
    return url_with_nonce(seat, seat.pending_link_nonce)


def read_seat(game_id: int, position: int) -> Seat | None:
    """Seat ``position`` of game ``game_id`` with its game and account, or None."""
    seats = Seat.objects.select_related("game", "user").filter(game_id=game_id, position=position)
    return next(iter(seats), None)


@dataclass(frozen=True)
class LinkKey:
    """What a seat link's token says, once its signature holds."""

    game_id: int
    position: int
    nonce: str


def read_token(token: str) -> LinkKey:
    """The key a token carries, or BadLink("tampered")."""
    try:
        payload = timeless.loads(token, salt=SALT)
        game_id, position, nonce = payload["g"], payload["s"], payload["n"]
    except (signing.BadSignature, KeyError, TypeError) as exc:
        raise BadLink("tampered") from exc
    if not isinstance(game_id, int) or not isinstance(position, int) or not isinstance(nonce, str):
        raise BadLink("tampered")
    return LinkKey(game_id, position, nonce)


def admit(seat: Seat | None, key: LinkKey, *, use: bool = False) -> Seat:
    """``seat`` if ``key``'s nonce opens it, else BadLink; with ``use`` (a POST) a fresh
    link becomes the current one, and every older link dies."""
    if seat is None:
        raise BadLink("missing")
    nonce = key.nonce
    if constant_time_compare(seat.link_nonce, nonce):
        return seat
    if seat.pending_link_nonce and constant_time_compare(seat.pending_link_nonce, nonce):
        if use:
            # Conditional: of two first POSTs at once, one promotes, both get through.
            Seat.objects.filter(pk=seat.pk, pending_link_nonce=nonce).update(
                link_nonce=nonce, pending_link_nonce=""
            )
            seat.refresh_from_db(fields=["link_nonce", "pending_link_nonce"])
            if not constant_time_compare(seat.link_nonce, nonce):
                raise BadLink("revoked", seat)  # the seat was handed on meanwhile
            seat_links_renewed.send(sender=Seat, seat=seat)
        return seat
    raise BadLink("revoked", seat)


def seat_for_token(token: str, *, use: bool = False) -> Seat:
    """The seat a token opens, with its game and account, or BadLink."""
    key = read_token(token)
    return admit(read_seat(key.game_id, key.position), key, use=use)


def start_fresh_link(seat: Seat) -> None:
    """Give ``seat`` a pending link nonce unless it has one; run it in the transaction
    that mails it."""
    if not seat.pending_link_nonce:
        seat.pending_link_nonce = new_link_nonce()
        seat.save(update_fields=["pending_link_nonce"])


def rotate_link(seat: Seat) -> None:
    """Give ``seat`` a new link nonce: every link issued before dies, fresh ones too."""

    seat.link_nonce = new_link_nonce()
    seat.pending_link_nonce = ""
    seat.save(update_fields=["link_nonce", "pending_link_nonce"])
    seat_links_renewed.send(sender=Seat, seat=seat)


def suggestion_url(seat: Seat, version: int, number: int) -> str:
    """The absolute link to play suggestion ``number`` of the email built at ``version``."""
    args = [make_token(seat), version, number]
    return settings.SITE_URL + reverse("games:suggested", args=args)


def replay_url(game: Game) -> str:
    """The absolute URL of ``game``'s replay page."""
    return settings.SITE_URL + reverse("games:replay", args=[game.pk])
