"""Receive replies by SMTP: the built-in receiver an MTA forwards reply mail to.

    manage.py receive_mail [--host 127.0.0.1] [--port 8025 (RAILMAIL_RECEIVER_PORT)]

It accepts mail only for reply addresses of RAILMAIL_INBOUND_DOMAIN (550 for any other
recipient: never an open relay) and hands each message to notifications.inbound, the
same handler as the provider's webhook. Run it on loopback behind the MTA (deploy/
has its unit and Postfix's lines); it stops on SIGTERM or Ctrl-C.
"""

from __future__ import annotations

import email
import logging
import signal
from email import policy

from aiosmtpd.controller import Controller
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import InterfaceError, OperationalError, close_old_connections

from notifications import inbound, reply_addresses

log = logging.getLogger(__name__)

# The largest reply taken, in bytes: a move or a few words, perhaps with a quoted email.
MAX_SIZE = 1_000_000


class ReplyHandler:
    """aiosmtpd's handler: recipients checked at RCPT, messages handled at DATA."""

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if not reply_addresses.is_reply_address(address):
            return "550 5.1.1 No such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content or envelope.content
        message = email.message_from_bytes(raw, policy=policy.default)
        try:
            outcome = await sync_to_async(read, thread_sensitive=True)(
                message, envelope.mail_from or "<>", list(envelope.rcpt_tos)
            )
        except (OperationalError, InterfaceError):
            # The database is away (a restart): a temporary answer, so that the sending
            # MTA keeps the reply and tries again (aiosmtpd would answer 500, a bounce).
            log.warning("database away: reply from %s deferred with 451", envelope.mail_from)
            return "451 4.3.0 Temporarily unable to read replies, try again later"
        return f"250 OK: {outcome}"


def read(message, envelope_from: str, envelope_to: list[str]) -> str:
    close_old_connections()
    try:
        return inbound.receive(message, envelope_from=envelope_from, envelope_to=envelope_to).code
    finally:
        close_old_connections()


class Command(BaseCommand):
    help = "Receive replies by SMTP (for an MTA that forwards reply mail to it)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=settings.RAILMAIL_RECEIVER_PORT)

    def handle(self, *args, host: str, port: int, **options) -> None:
        if not settings.RAILMAIL_INBOUND_DOMAIN:
            raise CommandError("Set RAILMAIL_INBOUND_DOMAIN: the domain whose reply mail to read.")
        controller = Controller(
            ReplyHandler(), hostname=host, port=port, data_size_limit=MAX_SIZE, ready_timeout=10
        )
        # Blocked before the server's thread starts (it inherits the mask), so that the
        # signals reach sigwait here and the server stops cleanly.
        stop = {signal.SIGINT, signal.SIGTERM}
        signal.pthread_sigmask(signal.SIG_BLOCK, stop)
        controller.start()
        self.stdout.write(
            f"Receiving replies to reply+...@{settings.RAILMAIL_INBOUND_DOMAIN} on {host}:{port}"
        )
        try:
            signal.sigwait(stop)
        finally:
            controller.stop()
            self.stdout.write("Stopped.")
