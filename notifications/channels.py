"""Channels besides email (Apprise): where else a player's notices, or a table's, go.

A channel is an Apprise URL (https://github.com/caronc/apprise/wiki) of a real chat or
push service: ntfy, Gotify, a JSON webhook, Mattermost, Matrix, Telegram, Discord or
Slack. Only those schemes are taken, and a self-hosted one must not point at a private,
loopback or link-local address unless ``RAILMAIL_CHANNELS_ALLOW_PRIVATE`` says so (tests,
a private deployment). The URL holds secrets (tokens, passwords, an ntfy topic): it is
never shown back in full (``masked``) nor logged (Apprise's own logger is kept at
WARNING, as its debug lines print URLs). A send gives up within 10 seconds.

What a channel says is built here, in the reader's words, from public facts only: whose
turn it is and what was played, never a hand, a plan's target, a missing cost or a
suggestion. A personal notice may carry the seat's link; a table's never carries a link
with a token.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

import apprise
from django.conf import settings
from django.utils.translation import gettext

from games import links, rules
from games.derived import snapshots
from games.models import Game, Seat
from games.words import narration

# Apprise logs the URLs it sends to at DEBUG and INFO: never in our logs.
logging.getLogger("apprise").setLevel(logging.WARNING)

# The schemes of self-hostable services, whose host we check, and those of hosted
# services, whose "host" is a token and whose address is the service's own.
SELF_HOSTED = {
    "ntfy",
    "ntfys",
    "json",
    "jsons",
    "gotify",
    "gotifys",
    "mmost",
    "mmosts",
    "matrix",
    "matrixs",
}
HOSTED = {"tgram", "discord", "slack"}
SCHEMES = SELF_HOSTED | HOSTED

# Connect and read timeouts of one request (Apprise's cto and rto): one send, which is one
# request for these services with no retries, gives up within 10 seconds.
CONNECT_TIMEOUT = 3
READ_TIMEOUT = 6


class ChannelRefused(ValueError):
    """A channel URL that is not taken; the message says why, in the reader's words."""


@dataclass(frozen=True)
class Notice:
    """What one channel message says: a title and a body of plain text."""

    title: str
    body: str


def check_url(url: str) -> str:
    """``url`` as stored, if it names an allowed service at an allowed address; else
    ChannelRefused."""
    url = url.strip()
    scheme = urlsplit(url).scheme.lower()
    if scheme not in SCHEMES:
        raise ChannelRefused(
            gettext(
                "Only ntfy, Gotify, JSON webhooks, Mattermost, Matrix, Telegram, Discord and "
                "Slack are supported."
            )
        )
    plugin = apprise.Apprise.instantiate(url)
    if plugin is None:
        raise ChannelRefused(gettext("That address is not one Apprise can send to."))
    allowed = settings.RAILMAIL_CHANNELS_ALLOW_PRIVATE
    if scheme in SELF_HOSTED and not allowed and _private(plugin.host or ""):
        raise ChannelRefused(gettext("Private and local addresses are not allowed."))
    return url


def _private(host: str) -> bool:
    """Whether ``host`` is, or resolves to, an address that is not public."""
    try:
        found = {info[4][0] for info in socket.getaddrinfo(host, None)}
    except (socket.gaierror, UnicodeError):
        return True  # nothing to send to
    return any(not ipaddress.ip_address(address.split("%")[0]).is_global for address in found)


def masked(url: str) -> str:
    """What a page may show of a channel's URL: the service, and the host of a
    self-hosted one; never a token, a password or a topic."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme in SELF_HOSTED and parts.hostname:
        return f"{scheme}://{parts.hostname}/…"
    return f"{scheme}://…"


def send(url: str, notice: Notice) -> bool:
    """Send ``notice`` to the channel at ``url``; return whether the service took it.

    Never raises for a service that is down or refuses: the caller retries later."""
    plugin = apprise.Apprise.instantiate(url)
    if plugin is None:
        return False
    plugin.socket_connect_timeout = CONNECT_TIMEOUT
    plugin.socket_read_timeout = READ_TIMEOUT
    try:
        return bool(plugin.notify(body=notice.body, title=notice.title))
    except Exception:  # a plugin's own bug must not stop the outbox
        logging.getLogger(__name__).warning("channel %s failed", masked(url), exc_info=False)
        return False


def your_turn(game_name: str, moves: list[str], seat_url: str | None) -> Notice:
    """A personal notice that it is the reader's turn: what the others played since
    (``moves``, public words), and the seat's link when the channel is the player's own."""
    lines = list(moves)
    if seat_url:
        lines.append(gettext("Your move: %(url)s") % {"url": seat_url})
    return Notice(gettext("Your turn in %(game)s") % {"game": game_name}, "\n".join(lines))


def table_turn(game_name: str, moves: list[str], to_move: str) -> Notice:
    """The table's notice after a turn: what was played, and whose turn it is; no link."""
    lines = [*moves, gettext("%(name)s is to move.") % {"name": to_move}]
    return Notice(game_name, "\n".join(lines))


def news(game_name: str, what: str) -> Notice:
    """Any other notice of a game (a round scored, the game over, a seat's change), in
    public words."""
    return Notice(game_name, what)


def turn_notice(game: Game, seat: Seat | None = None) -> Notice:
    """The notice of the turn ``game`` is at: to ``seat``'s own channel (it is their turn;
    with their link), or to the table's (``seat`` None; no link). Public words only: the
    moves since the reader's last turn (the table's: since the player to move last moved)."""
    snapshot = snapshots.current(game)
    state = snapshot.state
    names = game.seat_names()
    reader = seat.position if seat is not None else state.seat_to_move
    moves = [
        narration.describe(event, state, names)
        for event in rules.moves_since_last_turn(snapshot.round_events, reader)
    ]
    if seat is not None:
        return your_turn(game.display_name, moves, links.seat_url(seat))
    return table_turn(game.display_name, moves, names[state.seat_to_move])
