"""Mail servers of the tests' own, on loopback: an SMTP server (aiosmtpd) that accepts,
answers 4xx or 5xx at the step the test chooses, or never answers at all; and a provider's
HTTP API that answers the status the test chooses.

Each is a real server that Django's SMTP backend or anymail talks to over a socket: the
failures the outbox sees are the ones a real server causes.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from aiosmtpd.controller import Controller

from tests.faults import closed_port


@dataclass
class SmtpHandler:
    """What the server answers: ``mail_from`` to MAIL FROM, ``data`` after DATA (an SMTP
    reply such as "554 5.7.1 Rejected"; empty accepts). Accepted messages are kept."""

    mail_from: str = ""
    data: str = ""
    received: list = field(default_factory=list)
    sessions: int = 0  # how many connections said EHLO
    rcpt_answers: dict = field(default_factory=dict)  # an answer to RCPT TO per address

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address in self.rcpt_answers:
            return self.rcpt_answers[address]
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_EHLO(self, server, session, envelope, hostname, responses):
        self.sessions += 1
        session.host_name = hostname
        return responses

    async def handle_MAIL(self, server, session, envelope, address, mail_options):
        if self.mail_from:
            return self.mail_from
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        if self.data:
            return self.data
        self.received.append(envelope.content.decode("utf8", errors="replace"))
        return "250 Message accepted for delivery"


@contextmanager
def smtp_server(**answers: str) -> Iterator[tuple[int, SmtpHandler]]:
    """An SMTP server on loopback: yields its port and its handler."""
    handler = SmtpHandler(**answers)
    controller = Controller(handler, hostname="127.0.0.1", port=closed_port(), ready_timeout=10)
    controller.start()
    try:
        yield controller.port, handler
    finally:
        controller.stop()


@contextmanager
def silent_server() -> Iterator[int]:
    """A server that takes connections (the kernel completes them) and never says a word:
    a mail server that hangs. Yields its port."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield listener.getsockname()[1]


@contextmanager
def provider_api(status: int, body: dict | None = None) -> Iterator[str]:
    """An HTTP API on loopback that answers every POST with ``status`` and ``body`` (JSON):
    a provider's send endpoint. Yields its base URL."""
    payload = json.dumps(body or {}).encode()

    class Answer(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args):  # quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
