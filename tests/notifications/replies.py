"""A corpus of replies as common mail programs write them (English and German), as raw
messages, written from how each formats a reply:

- where the answer stands: above the quote (Gmail, Outlook, Apple Mail, Yahoo, GMX and
  phones by default), below it (Thunderbird when asked, people who write under the quote
  by hand), or between quoted parts (answering under the line they answer);
- how the quote is marked: "> " under an attribution line ("On ... wrote:", "Am ...
  schrieb ...:", which Gmail wraps when it is long), or not at all under an Outlook or
  GMX header block ("From:/Sent:", "Von:/Gesendet:") or a Yahoo attribution; in HTML by
  <blockquote>, Gmail's "gmail_quote", Thunderbird's "moz-cite-prefix" or Outlook's
  "divRplyFwdMsg";
- which parts they send: text and HTML (most), text only (Thunderbird), HTML only (Outlook
  on the web and GMX when set to, many phones);
- how they wrap the plain text: Gmail at 76 columns, Thunderbird at 72 with format=flowed,
  Apple Mail flowed at 78; Outlook not at all.

``raw_reply`` builds a whole message: the reader's ``first_lines`` (their own words) where
``position`` says, and the quote ``client`` writes of our email ``ours``.
"""

from __future__ import annotations

import html
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid

from games.rules import Build, legal_line_ids, legal_second_line_ids

FROM = "Railmail <games@railmail.example.org>"


def _quoted(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines())


def _wrapped(text: str, width: int | None, flowed: bool) -> str:
    """``text`` wrapped as the client wraps what the reader typed (flowed: soft breaks
    end with a space, RFC 3676)."""
    if not width:
        return text
    out = []
    for line in text.splitlines():
        pieces = textwrap.wrap(line, width, break_long_words=False, break_on_hyphens=False)
        if not pieces:
            out.append("")
            continue
        out.extend(piece + " " for piece in pieces[:-1]) if flowed else out.extend(pieces[:-1])
        out.append(pieces[-1])
    return "\n".join(out)


def _lines_html(text: str) -> str:
    return "".join(f"<div>{html.escape(line) or '<br>'}</div>" for line in text.splitlines())


@dataclass(frozen=True)
class Client:
    """How one mail program writes a reply."""

    attribution: str  # the line over the quote ("" for a header block)
    marked: bool = True  # quote lines marked "> "
    header_block: str = ""  # Outlook's or GMX's header block over an unmarked quote
    wrap: int | None = None  # the plain text wrapped at this width
    flowed: bool = False
    parts: str = "both"  # "both", "text" or "html"
    html_quote: Callable[[str, str], str] | None = None  # (attribution, ours html) -> html
    signature: str = ""
    positions: tuple[str, ...] = ("above",)

    def quote(self, ours: str) -> str:
        if self.header_block:
            return self.header_block + "\n\n" + ours
        body = _quoted(ours) if self.marked else "\n" + ours
        return f"{self.attribution}\n{body}"


def _gmail_html(attribution: str, ours: str) -> str:
    return (
        f'<div class="gmail_quote"><div dir="ltr" class="gmail_attr">{html.escape(attribution)}'
        f'<br></div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;'
        f'border-left:1px solid rgb(204,204,204);padding-left:1ex">{ours}</blockquote></div>'
    )


def _apple_html(attribution: str, ours: str) -> str:
    return (
        f'<div dir="ltr"><br><blockquote type="cite">{html.escape(attribution)}<br><br>'
        f'</blockquote></div><blockquote type="cite"><div dir="ltr">{ours}</div></blockquote>'
    )


def _thunderbird_html(attribution: str, ours: str) -> str:
    return (
        f'<div class="moz-cite-prefix">{html.escape(attribution)}<br></div>'
        f'<blockquote type="cite" cite="mid:x@railmail.example.org">{ours}</blockquote>'
    )


def _outlook_html(header: str, ours: str) -> str:
    header = "<br>".join(html.escape(line) for line in header.splitlines() if "___" not in line)
    return (
        '<div id="appendonsend"></div><hr style="display:inline-block;width:98%" tabindex="-1">'
        f'<div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, sans-serif">{header}</font>'
        f"<div>&nbsp;</div></div>{ours}"
    )


def _gmx_html(header: str, ours: str) -> str:
    return (
        '<div name="quote" style="margin:10px 5px 5px 10px; padding: 10px 0 10px 10px; '
        'border-left:2px solid #C3D9E5;">'
        f'<div style="margin:0 0 10px 0;"><b>{html.escape(header)}</b></div>'
        f'<div name="quoted-content">{ours}</div></div>'
    )


OUTLOOK_EN = (
    "________________________________\n"
    f"From: {FROM}\n"
    "Sent: Monday, November 23, 2026 10:00 AM\n"
    "To: Ada <seat0@example.com>\n"
    "Subject: Your turn"
)
OUTLOOK_DE = (
    "________________________________\n"
    f"Von: {FROM}\n"
    "Gesendet: Montag, 23. November 2026 10:00\n"
    "An: Ada <seat0@example.com>\n"
    "Betreff: Your turn"
)
GMX_DE = (
    "Gesendet: Montag, 23. November 2026 um 10:00 Uhr\n"
    'Von: "Railmail" <games@railmail.example.org>\n'
    "An: seat0@example.com\n"
    "Betreff: Your turn"
)

CLIENTS: dict[str, Client] = {
    # Gmail on the web and its apps: text wrapped at 76 and HTML; the attribution over 76
    # columns is wrapped too. Answers above; below or between when the reader moves there.
    "gmail-en": Client(
        f"On Mon, 23 Nov 2026 at 10:00, {FROM}\nwrote:",
        wrap=76,
        html_quote=_gmail_html,
        positions=("above", "below", "between"),
    ),
    "gmail-de": Client(
        f"Am Mo., 23. Nov. 2026 um 10:00 Uhr schrieb {FROM}:",
        wrap=76,
        html_quote=_gmail_html,
        positions=("above", "below", "between"),
    ),
    # Outlook (desktop and web): an unmarked quote under a header block, never wrapped.
    "outlook-en": Client("", header_block=OUTLOOK_EN, html_quote=_outlook_html),
    "outlook-de": Client("", header_block=OUTLOOK_DE, html_quote=_outlook_html),
    "outlook-web-html-only-en": Client(
        "", header_block=OUTLOOK_EN, html_quote=_outlook_html, parts="html"
    ),
    # Apple Mail and iPhone: flowed text at 78, "Sent from my iPhone" over the quote.
    "apple-en": Client(
        f"On 23 Nov 2026, at 10:00, {FROM} wrote:",
        wrap=78,
        flowed=True,
        html_quote=_apple_html,
        signature="Sent from my iPhone",
        positions=("above", "between"),
    ),
    "apple-de": Client(
        f"Am 23.11.2026 um 10:00 schrieb {FROM}:",
        wrap=78,
        flowed=True,
        html_quote=_apple_html,
        signature="Von meinem iPhone gesendet",
    ),
    # Thunderbird: text only, flowed at 72; here set to answer under the quote, with a
    # signature under the answer.
    "thunderbird-en": Client(
        "On 23/11/2026 10:00, Railmail wrote:",
        wrap=72,
        flowed=True,
        parts="text",
        signature="-- \nAda Lovelace",
        positions=("below", "above", "between"),
    ),
    "thunderbird-de": Client(
        "Am 23.11.26 um 10:00 schrieb Railmail:",
        wrap=72,
        flowed=True,
        parts="text",
        signature="-- \nAda Lovelace",
        positions=("below", "above"),
    ),
    "thunderbird-html-de": Client(
        "Am 23.11.26 um 10:00 schrieb Railmail:",
        parts="html",
        html_quote=_thunderbird_html,
        positions=("below",),
    ),
    # Yahoo: an attribution over an unmarked quote.
    "yahoo-en": Client(
        f"On Monday, 23 November 2026, 10:00:00 GMT, {FROM} wrote:",
        marked=False,
        html_quote=_gmail_html,
    ),
    # GMX and WEB.DE (German web mail): a header block over the unmarked quote; HTML only.
    "gmx-de": Client("", header_block=GMX_DE, html_quote=_gmx_html),
    "gmx-html-only-de": Client("", header_block=GMX_DE, html_quote=_gmx_html, parts="html"),
}

# The clients and where their reader writes, for parametrised tests.
LAYOUTS = [(name, position) for name, client in CLIENTS.items() for position in client.positions]


def _halves(ours: str) -> tuple[str, str]:
    lines = ours.splitlines()
    middle = len(lines) // 2
    return "\n".join(lines[:middle]), "\n".join(lines[middle:])


def reply_body(first_lines: str, ours: str, client: str, position: str) -> tuple[str, str]:
    """The text and HTML ``client`` writes for the reader's ``first_lines`` at
    ``position`` over, under or inside its quote of ``ours``."""
    spec = CLIENTS[client]
    own = _wrapped(first_lines, spec.wrap, spec.flowed)
    signature = f"\n\n{spec.signature}" if spec.signature else ""
    own_html = _lines_html(first_lines)
    if not ours:
        return own + signature, own_html
    ours_html = _lines_html(ours)
    quote_html = (
        spec.html_quote(spec.attribution or spec.header_block, ours_html) if spec.html_quote else ""
    )
    if position == "below":
        text = f"{spec.quote(ours)}\n\n{own}{signature}"
        html_body = f"{quote_html}<br>{own_html}"
    elif position == "between":
        first, second = _halves(ours)
        text = f"{spec.attribution}\n{_quoted(first)}\n\n{own}\n\n{_quoted(second)}{signature}"
        html_body = (
            f"{_gmail_html(spec.attribution, _lines_html(first))}{own_html}"
            f"<blockquote>{_lines_html(second)}</blockquote>"
        )
    else:
        text = f"{own}{signature}\n\n{spec.quote(ours)}"
        html_body = f"<div dir='ltr'>{own_html}</div><br>{quote_html}"
    return text, f"<html><body>{html_body}</body></html>"


def raw_reply(
    *,
    sender: str,
    to: str,
    first_lines: str,
    ours: str = "",
    client: str = "gmail-en",
    position: str = "above",
    message_id: str = "",
    headers: dict | None = None,
) -> bytes:
    """A reply from ``sender`` to ``to``: ``first_lines`` where ``position`` says
    (above, below or between), and the quote ``client`` writes of our email ``ours``."""
    spec = CLIENTS[client]
    message = EmailMessage()
    message["From"] = f"Ada <{sender}>"
    message["To"] = to
    message["Subject"] = "Re: Your turn · Friday game"
    message["Date"] = format_datetime(datetime(2026, 11, 23, 10, 5, tzinfo=UTC))
    message["Message-ID"] = message_id or make_msgid(domain="mail.example.com")
    for name, value in (headers or {}).items():
        message[name] = value
    text, html_body = reply_body(first_lines, ours, client, position)
    params = {"format": "flowed"} if spec.flowed else {}
    if spec.parts == "html":
        message.set_content(html_body, subtype="html")
    else:
        message.set_content(text + "\n", params=params)
        if spec.parts == "both":
            message.add_alternative(html_body, subtype="html")
    return message.as_bytes(policy=message.policy.clone(linesep="\r\n"))  # SMTP wants CRLF


def two_line_move(state) -> Build:
    """A legal move of two lines for the seat to move in ``state`` (building)."""
    seat = state.seat_to_move
    for first in legal_line_ids(state, seat):
        if state.board.lines[first][2] != 1:
            continue
        seconds = legal_second_line_ids(state, seat, first)
        if seconds:
            ids = (first, seconds[0])
            return Build(tuple(state.board.line_points(i) for i in ids), frozenset())
    raise AssertionError("no two-line move")
