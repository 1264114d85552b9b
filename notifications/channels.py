"""Channels besides email (Apprise): where else a player's notices, or a table's, go.

A channel is an Apprise URL of a few known services; a self-hosted one may not point at a
private address (asked again at each send). The URL holds secrets, so it is never shown in
full nor logged. Notices say public facts only; a table's never carries a seat's link.
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


class _NoSecrets(logging.Filter):
    """Apprise's warnings name URLs, topics and tokens: keep that a send failed, not its
    words."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = "apprise (%s): a notification failed or was refused; details withheld"
        record.args = (record.module,)
        record.exc_info = record.exc_text = None
        return True


# Apprise logs the URLs it sends to at DEBUG and INFO.
logging.getLogger("apprise").setLevel(logging.WARNING)
logging.getLogger("apprise").addFilter(_NoSecrets())

# Self-hosted services' hosts are checked; a hosted service's "host" is a token.
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

# One send is one request with no retries, so these bound how long a send may hang.
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
    """``url`` as stored, if it names an allowed service at an allowed address."""
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
    if _refused_host(url, plugin):
        raise ChannelRefused(gettext("Private and local addresses are not allowed."))
    return url


def _refused_host(url: str, plugin) -> bool:
    """Whether a self-hosted service's host resolves to a non-public address; asked again
    at each send, as a name may point elsewhere by then."""
    scheme = urlsplit(url.strip()).scheme.lower()
    if scheme not in SELF_HOSTED or settings.RAILMAIL_CHANNELS_ALLOW_PRIVATE:
        return False
    return _private(plugin.host or "")


def _private(host: str) -> bool:
    """Whether ``host`` is, or resolves to, an address that is not public."""
    try:
        found = {info[4][0] for info in socket.getaddrinfo(host, None)}
    except (socket.gaierror, UnicodeError):
        return True  # nothing to send to
    return any(not ipaddress.ip_address(address.split("%")[0]).is_global for address in found)


def masked(url: str) -> str:
    """What a page may show of a channel's URL: never a token, a password or a topic."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme in SELF_HOSTED and parts.hostname:
        return f"{scheme}://{parts.hostname}/…"
    return f"{scheme}://…"


def send(url: str, notice: Notice) -> bool:
    """Whether the service took ``notice``; never raises, as the caller retries later."""
    plugin = apprise.Apprise.instantiate(url)
    if plugin is None or _refused_host(url, plugin):
        return False
    plugin.socket_connect_timeout = CONNECT_TIMEOUT
    plugin.socket_read_timeout = READ_TIMEOUT
    try:
        return bool(plugin.notify(body=notice.body, title=notice.title))
    except Exception:  # a plugin's own bug must not stop the outbox
        logging.getLogger(__name__).warning("channel %s failed", masked(url), exc_info=False)
        return False


def your_turn(game_name: str, moves: list[str], seat_url: str | None) -> Notice:
    """The reader's turn: what the others played since, and the seat's link if given."""
    lines = list(moves)
    if seat_url:
        lines.append(gettext("Your move: %(url)s") % {"url": seat_url})
    return Notice(gettext("Your turn in %(game)s") % {"game": game_name}, "\n".join(lines))


def table_turn(game_name: str, moves: list[str], to_move: str) -> Notice:
    """The table's notice after a turn; no link, as the table is not the seat."""
    lines = [*moves, gettext("%(name)s is to move.") % {"name": to_move}]
    return Notice(game_name, "\n".join(lines))


def news(game_name: str, what: str) -> Notice:
    """Any other notice of a game, in public words."""
    return Notice(game_name, what)


def turn_notice(game: Game, seat: Seat | None = None) -> Notice:
    """The turn's notice for ``seat``'s own channel (with their link), or for the table's
    when ``seat`` is None (no link)."""
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
