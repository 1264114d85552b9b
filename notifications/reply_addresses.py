"""Reply addresses: one per recipient, seat and email, so a reply says who may act.

    reply+<token>@<RAILMAIL_INBOUND_DOMAIN>

The token is lower-case base32 (some mail systems lower-case addresses) of the seat, the
version and an HMAC keyed with the seat's link nonce: it cannot be guessed, and it dies
when the seat's links are replaced.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import struct

from django.conf import settings
from django.utils.crypto import salted_hmac

from games.models import Seat

PREFIX = "reply+"
SALT = "notifications.reply_addresses"
MAC_BYTES = 10  # 80 bits


class BadReplyAddress(ValueError):
    """An address that is not a live reply address of ours; the message says why."""


def _mac(payload: bytes, nonce: str) -> bytes:
    return salted_hmac(SALT, payload + nonce.encode(), algorithm="sha256").digest()[:MAC_BYTES]


def token(seat: Seat, version: int) -> str:
    payload = struct.pack(">II", seat.pk, version)
    raw = payload + _mac(payload, seat.link_nonce)
    return base64.b32encode(raw).decode().rstrip("=").lower()


def reply_address(seat: Seat, version: int) -> str:
    """Where a reply to ``seat``'s email goes, or "" when the site reads no mail."""
    domain = settings.RAILMAIL_INBOUND_DOMAIN
    return f"{PREFIX}{token(seat, version)}@{domain}" if domain else ""


def is_reply_address(address: str) -> bool:
    """Whether ``address`` has the form of our reply addresses (not yet whether it is live)."""
    local, _, domain = address.strip().lower().rpartition("@")
    inbound = settings.RAILMAIL_INBOUND_DOMAIN.lower()
    return bool(inbound) and domain == inbound and local.startswith(PREFIX)


def read(address: str) -> tuple[Seat, int]:
    """The seat and game version a reply address names; raises BadReplyAddress."""
    if not is_reply_address(address):
        raise BadReplyAddress(f"{address} is not one of our reply addresses")
    text = address.strip().lower().rpartition("@")[0][len(PREFIX) :]
    try:
        raw = base64.b32decode(text.upper() + "=" * (-len(text) % 8))
    except (binascii.Error, ValueError):
        raise BadReplyAddress("the reply address is damaged") from None
    # Only the one spelling we write: the last letter carries a spare bit, and a token
    # that differs from ours in it is not ours.
    if len(raw) != 8 + MAC_BYTES or base64.b32encode(raw).decode().rstrip("=").lower() != text:
        raise BadReplyAddress("the reply address is damaged")
    payload, mac = raw[:8], raw[8:]
    seat_id, version = struct.unpack(">II", payload)
    seat = Seat.objects.select_related("game", "user").filter(pk=seat_id).first()
    if seat is None or not hmac.compare_digest(mac, _mac(payload, seat.link_nonce)):
        # Forged, or the seat's links were replaced since.
        raise BadReplyAddress("the reply address is not (or no longer) valid")
    return seat, version
