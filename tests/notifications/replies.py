"""Replies as common mail clients write them (English and German), as raw messages.

Each client quotes the email it answers in its own way: Gmail and Thunderbird with an
attribution line and "> ", Apple Mail likewise in its own words, Outlook with a header
block and no quote marks at all. ``CLIENTS`` holds the quote each writes under the
reader's first lines; ``raw_reply`` builds a whole message around it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid


def _quoted(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines())


CLIENTS = {
    "gmail-en": lambda ours: (
        "On Mon, 23 Nov 2026 at 10:00, Railmail <games@railmail.example.org> wrote:\n"
        + _quoted(ours)
    ),
    "gmail-de": lambda ours: (
        "Am Mo., 23. Nov. 2026 um 10:00 Uhr schrieb Railmail <games@railmail.example.org>:\n"
        + _quoted(ours)
    ),
    "outlook-en": lambda ours: (
        "________________________________\n"
        "From: Railmail <games@railmail.example.org>\n"
        "Sent: Monday, November 23, 2026 10:00 AM\n"
        "To: Ada <seat0@example.com>\n"
        "Subject: Your turn\n\n" + ours
    ),
    "outlook-de": lambda ours: (
        "________________________________\n"
        "Von: Railmail <games@railmail.example.org>\n"
        "Gesendet: Montag, 23. November 2026 10:00\n"
        "An: Ada <seat0@example.com>\n"
        "Betreff: Your turn\n\n" + ours
    ),
    "apple-en": lambda ours: (
        "Sent from my iPhone\n\n"
        "> On 23 Nov 2026, at 10:00, Railmail <games@railmail.example.org> wrote:\n>\n"
        + _quoted(ours)
    ),
    "apple-de": lambda ours: (
        "Von meinem iPhone gesendet\n\n"
        "> Am 23.11.2026 um 10:00 schrieb Railmail <games@railmail.example.org>:\n>\n"
        + _quoted(ours)
    ),
    "thunderbird-en": lambda ours: (
        "-- \nAda Lovelace\n\nOn 23/11/2026 10:00, Railmail wrote:\n" + _quoted(ours)
    ),
    "thunderbird-de": lambda ours: (
        "-- \nAda Lovelace\n\nAm 23.11.26 um 10:00 schrieb Railmail:\n" + _quoted(ours)
    ),
}


def raw_reply(
    *,
    sender: str,
    to: str,
    first_lines: str,
    ours: str = "",
    client: str = "gmail-en",
    message_id: str = "",
    headers: dict | None = None,
) -> bytes:
    """A reply from ``sender`` to ``to``: ``first_lines``, then the quote ``client``
    writes of our email ``ours``."""
    message = EmailMessage()
    message["From"] = f"Ada <{sender}>"
    message["To"] = to
    message["Subject"] = "Re: Your turn · Friday game"
    message["Date"] = format_datetime(datetime(2026, 11, 23, 10, 5, tzinfo=UTC))
    message["Message-ID"] = message_id or make_msgid(domain="mail.example.com")
    for name, value in (headers or {}).items():
        message[name] = value
    body = first_lines
    if ours:
        body += "\n\n" + CLIENTS[client](ours)
    message.set_content(body + "\n")
    return message.as_bytes(policy=message.policy.clone(linesep="\r\n"))  # SMTP wants CRLF
