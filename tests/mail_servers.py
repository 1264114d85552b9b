"""Mail servers of the tests' own, on loopback: an SMTP server (aiosmtpd) that accepts,
answers 4xx or 5xx at the step the test chooses, or never answers at all; and a provider's
HTTP API that answers the status the test chooses.

Each is a real server that Django's SMTP backend or anymail talks to over a socket: the
failures the outbox sees are the ones a real server causes.
"""

from __future__ import annotations

import asyncio
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
    # Answers to the first DATAs, one each, before ``data`` applies (e.g. a 451 once).
    data_answers: list = field(default_factory=list)
    # Every message whose DATA was complete (its final dot received), whatever the answer.
    seen: list = field(default_factory=list)
    # Once this many messages are accepted, every further DATA waits for ever (until the
    # client goes, or the test sets it to None: then it is accepted): a server that hangs
    # mid-batch. The messages it hung on are in ``hung``.
    hang_after: int | None = None
    hung: list = field(default_factory=list)

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
        content = envelope.content.decode("utf8", errors="replace")
        self.seen.append(content)
        if self.data_answers:
            return self.data_answers.pop(0)
        if self.data:
            return self.data
        if self.hang_after is not None and len(self.received) >= self.hang_after:
            self.hung.append(content)
            while self.hang_after is not None:  # cancelled when the client goes
                await asyncio.sleep(0.05)
        self.received.append(content)
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
def accepting_silently() -> Iterator[tuple[int, list]]:
    """A server that accepts each connection and then never says a word (no greeting, no
    answer): a mail server or an HTTP API that hangs. Yields its port and the list of
    connections it took."""
    taken: list[socket.socket] = []
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.1)
    running = True

    def accept() -> None:
        while running:
            try:
                taken.append(listener.accept()[0])
            except TimeoutError:
                continue
            except OSError:
                return

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1], taken
    finally:
        running = False
        thread.join(timeout=10)
        for connection in taken:
            connection.close()
        listener.close()


@contextmanager
def recording_api(*statuses: int, body: dict | None = None) -> Iterator[tuple[str, list]]:
    """An HTTP API on loopback that answers its POSTs with ``statuses`` in turn (the last
    one for ever after) and ``body``, and keeps each request's JSON: a provider's send
    endpoint that fails and then recovers. Yields its base URL and the requests."""
    payload = json.dumps(body or {}).encode()
    requests: list[dict] = []
    answers = list(statuses)

    class Answer(BaseHTTPRequestHandler):
        def do_POST(self):
            requests.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            status = answers.pop(0) if len(answers) > 1 else answers[0]
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
        yield f"http://127.0.0.1:{server.server_address[1]}/", requests
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@contextmanager
def provider_api(status: int, body: dict | None = None) -> Iterator[str]:
    """An HTTP API on loopback that answers every POST with ``status`` and ``body`` (JSON):
    a provider's send endpoint. Yields its base URL."""
    with recording_api(status, body=body) as (url, _requests):
        yield url
