"""Signed links to a seat's board page.

A seat link carries the game, the seat's position and the seat's ``link_nonce``, signed
with a salt used for nothing else (so no other signed value of the site is accepted as a
seat link, and a seat link is accepted as nothing else). Rotating the nonce revokes every
link of the seat issued before. A link opens that one seat's board page: it never signs
anyone into an account.

A fresh link (mailed on request to the seat's address) carries the seat's
``pending_link_nonce`` instead. It works beside the current link, and the first POST
through it makes it the current one, which is when every older link dies. So someone who
knows a player's address can have fresh links mailed to them, but cannot revoke the links
the player uses.

    seat_path(seat) -> "/s/<token>/"
    seat_url(seat) -> settings.SITE_URL + seat_path(seat)
    fresh_seat_url(seat) -> the absolute link with the seat's pending nonce
    seat_for_token(token, use=False, read=read_seat) -> Seat, or raises BadLink; ``use``
        (a POST) makes a fresh link the current one
    rotate_link(seat) -> None: new nonce, every older link of the seat dies
    replay_url(game) -> absolute URL of the game's replay page ("games:replay")
"""

from collections.abc import Callable

from django.conf import settings
from django.core import signing
from django.urls import reverse
from django.utils.crypto import constant_time_compare

from games.models import Game, Seat, new_link_nonce

SALT = "games.links.seat"


class BadLink(signing.BadSignature):
    """A seat link that is tampered with, revoked, or points to no seat.

    ``reason`` says which: "tampered" (the signature does not check out: a forged,
    truncated or foreign token), "missing" (the game or seat no longer exists) or
    "revoked" (a newer link replaced it). For "revoked", ``seat`` is the seat the link
    was for, so the page can offer to send a fresh one.
    """

    def __init__(self, reason: str, seat: Seat | None = None) -> None:
        super().__init__(f"bad seat link: {reason}")
        self.reason = reason
        self.seat = seat


def make_token(seat: Seat, nonce: str = "") -> str:
    """The signed token for ``seat``'s current link (or the link with ``nonce``)."""
    payload = {"g": seat.game_id, "s": seat.position, "n": nonce or seat.link_nonce}
    return signing.dumps(payload, salt=SALT, compress=False)


def seat_path(seat: Seat) -> str:
    """The path of ``seat``'s board page, signed."""
    return reverse("games:seat", args=[make_token(seat)])


def seat_url(seat: Seat) -> str:
    """The absolute signed link to ``seat``'s board page, as sent by email."""
    return settings.SITE_URL + seat_path(seat)


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


def seat_for_token(
    token: str,
    *,
    use: bool = False,
    read: Callable[[int, int], Seat | None] = read_seat,
) -> Seat:
    """The seat a token opens, or BadLink (tampered, revoked or missing).

    A fresh link's token opens the seat too; with ``use`` (the request is a POST through
    it) it becomes the seat's current link, and every older link dies. ``read(game_id,
    position)`` reads the seat, with its game and account (a board page reads its whole
    table with it: games.pages.table_read).
    """
    try:
        payload = signing.loads(token, salt=SALT)
        game_id, position, nonce = payload["g"], payload["s"], payload["n"]
    except (signing.BadSignature, KeyError, TypeError) as exc:
        raise BadLink("tampered") from exc
    if not isinstance(game_id, int) or not isinstance(position, int) or not isinstance(nonce, str):
        raise BadLink("tampered")
    seat = read(game_id, position)
    if seat is None:
        raise BadLink("missing")
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
        return seat
    raise BadLink("revoked", seat)


def start_fresh_link(seat: Seat) -> None:
    """Give ``seat`` a pending link nonce, unless it has one already (then the same fresh
    link is mailed again). Must run inside the transaction that mails it."""
    if not seat.pending_link_nonce:
        seat.pending_link_nonce = new_link_nonce()
        seat.save(update_fields=["pending_link_nonce"])


def rotate_link(seat: Seat) -> None:
    """Give ``seat`` a new link nonce: every link issued before stops working, a fresh
    link not yet used too."""
    seat.link_nonce = new_link_nonce()
    seat.pending_link_nonce = ""
    seat.save(update_fields=["link_nonce", "pending_link_nonce"])


def suggestion_url(seat: Seat, version: int, number: int) -> str:
    """The absolute link to play suggestion ``number`` of the email built at ``version``."""
    args = [make_token(seat), version, number]
    return settings.SITE_URL + reverse("games:suggested", args=args)


def replay_url(game: Game) -> str:
    """The absolute URL of ``game``'s replay page."""
    return settings.SITE_URL + reverse("games:replay", args=[game.pk])
