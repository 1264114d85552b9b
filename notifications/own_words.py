"""A reply's own words: what the player wrote, wherever it stands around the quote.

Mail programs quote above, below or between the answer, and in HTML without "> ", so
every form of quote, attribution and signature is dropped. Blocks that stood apart stay
apart, so a move never runs into words written below it. The last guard before the table
refuses a seat link, a hand's cities or a piece of our email, however re-wrapped.
"""

from __future__ import annotations

import re
import unicodedata
from email.message import Message as EmailMessage
from functools import cache
from html.parser import HTMLParser

from mailparser_reply.parser import EmailMessage as ParsedReply

REPLY_LANGUAGES = ["en", "de"]

# Lines that end an own block and everything under it: Outlook's rule above its header
# block, and the old "Original Message" separator.
QUOTE_RULE = re.compile(
    r"^(?:_{20,}|-{3,}\s*(?:original message|ursprüngliche nachricht|original-nachricht)\s*-{3,})$",
    re.I,
)
# A signature's first line ("-- ", as RFC 3676 says; often "--" once spaces are trimmed).
SIGNATURE = re.compile(r"^--\s*$")
# What phones and mail apps add under the words: one line, dropped.
SENT_FROM = re.compile(
    r"^(?:sent from my\b.*|get outlook for\b.*|von meinem \S+ gesendet\b.*|gesendet von\b.*"
    r"|sent from (?:outlook|yahoo mail|mail for windows)\b.*)$",
    re.I,
)
# An Outlook header block line, unquoted: "From: ...", "Von: ...".
HEADER_LINE = re.compile(
    r"^\*?(?:from|sent|to|subject|date|cc|von|gesendet|an|betreff|datum)\*?:", re.I
)


def message_text(message: EmailMessage) -> str:
    """The plain text of ``message``, or its HTML as text with the quote marked "> "."""
    html = ""
    for part in message.walk():
        if part.is_multipart() or part.get_content_disposition() == "attachment":
            continue
        kind = part.get_content_type()
        if kind not in ("text/plain", "text/html"):
            continue
        payload = part.get_payload(decode=True) or b""
        body = payload.decode(part.get_content_charset() or "utf-8", errors="replace")
        if kind == "text/plain":
            return body.replace("\r\n", "\n")
        html = html or body
    return html_text(html)


def own_words(text: str) -> str:
    """The lines of ``text`` the reader wrote, blocks that stood apart kept apart."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    attribution = _attribution_lines(lines)
    kept: list[str] = []
    in_signature = False
    for number, raw in enumerate(lines):
        line = raw.strip()
        if number in attribution and not _quoted_below(lines, number, attribution):
            break  # an attribution over an unmarked quote (Yahoo, some phones): all ours
        if number in attribution or line.startswith(">"):
            if kept and kept[-1] != "":
                kept.append("")  # a quote between: the block above ends here
            in_signature = False
            continue
        if QUOTE_RULE.match(line) or _outlook_header(lines, number):
            break  # Outlook's quote is unmarked: all below it is ours
        if SIGNATURE.match(line):
            in_signature = True
            continue
        if in_signature or SENT_FROM.match(line):
            continue
        if line == "" and kept and kept[-1] == "":
            continue
        kept.append(raw.rstrip())
    return "\n".join(kept).strip()


def _quoted_below(lines: list[str], number: int, attribution: set[int]) -> bool:
    """Whether the first line under the attribution at ``number`` is quoted, or missing."""
    for below in range(number + 1, len(lines)):
        if below in attribution:
            continue
        line = lines[below].strip()
        if line:
            return line.startswith(">")
    return True


def _outlook_header(lines: list[str], number: int) -> bool:
    """Whether an unquoted header block ("From:", "Sent:", ...) starts at line ``number``."""
    if not HEADER_LINE.match(lines[number].strip()):
        return False
    following = lines[number + 1 : number + 4]
    return any(HEADER_LINE.match(line.strip()) for line in following)


@cache
def _header_pattern() -> re.Pattern:
    """mail-parser-reply's pattern for the lines over a quote, English and German."""
    return ParsedReply(text="", languages=list(REPLY_LANGUAGES)).HEADER_REGEX


def _attribution_lines(lines: list[str]) -> set[int]:
    """The numbers of the lines saying who wrote the quote, which may be wrapped."""
    pattern = _header_pattern()
    found: set[int] = set()
    for number in range(len(lines)):
        for width in (1, 2, 3):
            chunk = "\n".join(line.strip() for line in lines[number : number + width])
            if not chunk or chunk.startswith(">"):
                break
            if re.search(r"(wrote|schrieb\b.*):\s*$", chunk, re.I) and pattern.fullmatch(chunk):
                found.update(range(number, number + width))
                break
    return found


# HTML mail: the quote is what a <blockquote> or a client's quote container holds.
QUOTE_CLASSES = ("gmail_quote", "moz-cite-prefix", "yahoo_quoted", "protonmail_quote")
QUOTE_IDS = ("appendonsend", "divrplyfwdmsg", "mail-editor-reference-message-container")
BLOCKS = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "table", "blockquote", "hr"}


class _HtmlText(HTMLParser):
    """HTML to lines of text; lines inside a quote are marked "> "."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[tuple[int, str]] = []
        self.current = ""
        self.depth = 0  # quote depth
        self.stack: list[tuple[str, bool]] = []  # open tags, and whether each opened a quote
        self.after_outlook = False  # once Outlook's reply header starts, all is quote
        self.skip = 0  # inside <style>, <script>, <head>

    def _flush(self, always: bool = False) -> None:
        """End the line written so far; an empty one only when ``always`` (a <br>)."""
        if self.current.strip() or always:
            quoted = self.depth > 0 or self.after_outlook
            self.lines.append((1 if quoted else 0, self.current))
        self.current = ""

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        if tag in ("style", "script", "head", "title"):
            self.skip += 1
            return
        if tag in BLOCKS:
            self._flush(always=tag == "br")
        if tag in ("br", "hr", "img", "meta", "link", "input"):
            return
        classes = (values.get("class") or "").lower().split()
        element_id = (values.get("id") or "").lower()
        quote = (
            tag == "blockquote"
            or any(c in classes for c in QUOTE_CLASSES)
            or (values.get("name") or "").lower() == "quote"  # GMX, WEB.DE
        )
        if element_id in QUOTE_IDS:
            self.after_outlook = True
        self.stack.append((tag, quote))
        self.depth += quote

    def handle_endtag(self, tag):
        if tag in ("style", "script", "head", "title"):
            self.skip = max(0, self.skip - 1)
            return
        if tag in BLOCKS:
            self._flush()
        if tag == "p":
            self._flush(always=True)  # paragraphs stand apart
        for index in range(len(self.stack) - 1, -1, -1):
            if self.stack[index][0] == tag:
                for _tag, quote in self.stack[index:]:
                    self.depth -= quote
                del self.stack[index:]
                break

    def handle_data(self, data):
        if not self.skip:
            self.current += " ".join(data.split("\n")) if data.strip() else data.strip("\n")


def html_text(html: str) -> str:
    """The text of an HTML email, its quoted parts marked "> " line by line."""
    parser = _HtmlText()
    parser.feed(html)
    parser.close()
    parser._flush()
    out = []
    for quoted, line in parser.lines:
        line = " ".join(line.replace("\xa0", " ").split())
        out.append(("> " + line if line else ">") if quoted else line)
    text = "\n".join(out)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


# Private text: never to the table.

CITIES_AT_MOST = 2  # own cities a message may name (three or more give a hand away)
# Pieces of our email this long, found in a reply, mean the quote is still in it.
QUOTED_PIECE = 40


def normalised(text: str) -> str:
    """Text as it is compared: quote marks gone, no accents, lower case, single spaces."""
    text = "\n".join(line.lstrip().lstrip(">").lstrip() for line in text.splitlines())
    text = re.sub(r"(?m)^(?:>\s*)+", "", text)
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c)).replace("ß", "ss")
    return " ".join(text.lower().split())


def _squeezed(text: str) -> str:
    """Text with all space and quote marks gone: a link the mail program broke over lines
    is whole again."""
    return re.sub(r"[\s>]+", "", text)


def holds_link(text: str, tokens: list[str]) -> bool:
    """Whether ``text`` holds a seat link (any "/s/<token>/" of ours) or one of ``tokens``."""
    squeezed = _squeezed(text)
    if re.search(r"/s/[A-Za-z0-9_:\-.]{20,}", squeezed):
        return True
    return any(token and _squeezed(token) in squeezed for token in tokens)


def cities_named(text: str, names: list[list[str]]) -> int:
    """How many of the cities ``names`` (each in every language) ``text`` names."""
    plain = f" {re.sub(r'[^a-z0-9]+', ' ', normalised(text))} "
    count = 0
    for spellings in names:
        for name in spellings:
            key = re.sub(r"[^a-z0-9]+", " ", normalised(name)).strip()
            if key and f" {key} " in plain:
                count += 1
                break
    return count


def quotes_ours(text: str, sent_text: str) -> bool:
    """Whether ``text`` holds a piece of ``sent_text`` (our email) however re-wrapped."""
    if not sent_text:
        return False
    theirs = normalised(text)
    ours = [normalised(line) for line in sent_text.splitlines()]
    ours = [line for line in ours if line]
    for index, line in enumerate(ours):
        if len(line) >= QUOTED_PIECE and line in theirs:
            return True
        if index + 1 < len(ours):
            pair = f"{line} {ours[index + 1]}"
            if len(pair) >= QUOTED_PIECE and pair in theirs:
                return True
    return False
