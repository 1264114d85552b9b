"""Mail in: replies to game emails, with a move or words for the table. One handler.

Two ways in, both to ``receive``: the configured provider's inbound webhook (anymail's
``inbound`` signal, see receivers.py) and the built-in SMTP receiver
(``manage.py receive_mail``) that an MTA forwards to.

A reply is trusted only when it goes to a live reply address of ours
(notifications.reply_addresses) and comes from that seat's own address, and, where the
receiving MTA or provider reports DKIM and DMARC (Authentication-Results), they did not
fail. Each Message-ID is handled once. Automatic mail (auto-replies, out-of-office,
bounces, lists) is ignored, so no loop with an autoresponder can start; our answers are
few per hour per address besides. The quoted email and signatures are cut off with
mail-parser-reply (English and German replies); what is left is a move (the grammar of
notifications.reply_grammar) played through the one write path, or table talk.
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass
from datetime import timedelta
from email.message import Message as EmailMessage
from email.utils import getaddresses, parseaddr

from django.db import IntegrityError, transaction
from django.utils import timezone, translation
from django.utils.html import strip_tags
from django.utils.translation import gettext
from mailparser_reply import EmailReplyParser

from accounts.models import normalize_email
from games import rules, services
from games.derived import snapshots
from games.models import Seat, TalkMessage
from games.services import talk
from games.words import places, suggestions
from games.words.explanations import explain
from games.words.languages import language_for
from notifications import emails, reply_addresses, reply_grammar
from notifications.models import InboundMail, Message

log = logging.getLogger(__name__)

# Answers to replies an address gets per hour at most: an autoresponder that slips past
# the checks gets a few answers, never a loop.
ANSWERS_PER_HOUR = 5
REPLY_LANGUAGES = ["en", "de"]

# Subjects of automatic replies that carry none of the standard headers.
AUTOMATIC_SUBJECTS = re.compile(
    r"^\s*(out of (the )?office|automatic reply|auto(matic)?[- ]?reply|autoreply|"
    r"abwesenheitsnotiz|automatische antwort|abwesend|undeliver|delivery status|"
    r"mail delivery (failed|failure|system)|returned mail)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Outcome:
    """What became of a reply: ``code`` for logs and tests, ``detail`` in words."""

    code: str
    detail: str = ""


def receive(message: EmailMessage, *, envelope_from: str = "", envelope_to=()) -> Outcome:
    """Handle one incoming email, once per Message-ID; return what became of it."""
    message_id = (message.get("Message-ID") or "").strip()
    if not message_id:
        message_id = "<sha256-" + hashlib.sha256(message.as_bytes()).hexdigest() + ">"
    sender = parseaddr(message.get("From", ""))[1]
    recipients = [
        address
        for _, address in getaddresses(message.get_all("To", []) + message.get_all("Cc", []))
    ]
    recipients = [*envelope_to, *recipients]
    address = next((a for a in recipients if reply_addresses.is_reply_address(a)), "")
    try:
        with transaction.atomic():
            record = InboundMail.objects.create(
                message_id=message_id[:250],
                sender=sender[:254],
                recipient=address[:254],
                outcome="received",
            )
    except IntegrityError:
        return Outcome("duplicate", "this Message-ID was handled before")
    outcome = _handle(record, message, sender, address, envelope_from)
    InboundMail.objects.filter(pk=record.pk).update(
        outcome=outcome.code, detail=outcome.detail[:2000], seat=record.seat
    )
    log.info("inbound mail %s from %s: %s", message_id, sender, outcome.code)
    return outcome


def _handle(
    record: InboundMail, message: EmailMessage, sender: str, address: str, envelope_from: str
) -> Outcome:
    if is_automatic(message, envelope_from):
        return Outcome("ignored-automatic", "an automatic reply, bounce or list mail")
    if not address:
        return Outcome("ignored-not-ours", "not sent to a reply address of ours")
    try:
        seat, version = reply_addresses.read(address)
    except reply_addresses.BadReplyAddress as exc:
        return Outcome("refused-address", str(exc))
    record.seat = seat
    if not sender or normalize_email(sender) != normalize_email(seat.email):
        # Never an answer: the sender may be a forger, and the seat's player did not write.
        return Outcome("refused-sender", f"{sender} is not the address of that seat")
    failed = authentication_failures(message)
    if failed:
        return Outcome("refused-authentication", f"{', '.join(failed)} failed")
    text = reply_text(message)
    request = reply_grammar.read(text)
    # Refusals and answers in the player's own language.
    with translation.override(language_for(seat)):
        if request is None:
            return _talk(seat, text, message)
        return _play(seat, version, request)


def is_automatic(message: EmailMessage, envelope_from: str = "") -> bool:
    """Whether ``message`` was sent by a machine: an auto-reply, a bounce, a list."""
    auto = (message.get("Auto-Submitted") or "no").strip().lower()
    precedence = (message.get("Precedence") or "").strip().lower()
    sender = parseaddr(message.get("From", ""))[1].lower()
    return (
        auto != "no"
        or any(
            message.get(name)
            for name in ("X-Autoreply", "X-Autorespond", "X-Auto-Response-Suppress-Reply")
        )
        or (message.get("X-Auto-Response-Suppress") or "").lower() in ("all", "oof")
        or precedence in ("bulk", "junk", "list", "auto_reply")
        or message.get("List-Id") is not None
        or message.get_content_type() == "multipart/report"
        or envelope_from.strip() in ("<>",)
        or sender.startswith(("mailer-daemon@", "postmaster@"))
        or bool(AUTOMATIC_SUBJECTS.match(message.get("Subject", "")))
    )


AUTH_RESULT = re.compile(r"\b(dkim|dmarc)=([a-z]+)", re.IGNORECASE)


def authentication_failures(message: EmailMessage) -> list[str]:
    """The checks (dkim, dmarc) that the receiving MTA or provider reported as failed.

    Only failures count: a sender may forge a "pass" (it changes nothing), but cannot
    remove the header our MTA or provider adds above its own."""
    failed = []
    for header in message.get_all("Authentication-Results", []) or []:
        for method, result in AUTH_RESULT.findall(str(header)):
            if result.lower() in ("fail", "permerror") and method.lower() not in failed:
                failed.append(method.lower())
    return failed


def reply_text(message: EmailMessage) -> str:
    """What the person wrote: the plain text (or the HTML's text), quotes and signature
    cut off."""
    text = ""
    for part in message.walk():
        if part.is_multipart() or part.get_content_disposition() == "attachment":
            continue
        kind = part.get_content_type()
        if kind in ("text/plain", "text/html"):
            payload = part.get_payload(decode=True) or b""
            body = payload.decode(part.get_content_charset() or "utf-8", errors="replace")
            if kind == "text/html":
                body = strip_tags(re.sub(r"(?i)<br\s*/?>|</p>|</div>", "\n", body))
            if kind == "text/plain" or not text:
                text = body
            if kind == "text/plain":
                break
    reply = EmailReplyParser(languages=REPLY_LANGUAGES).parse_reply(text)
    return (reply if reply is not None else text).strip()


def _talk(seat: Seat, text: str, message: EmailMessage) -> Outcome:
    """Words that are not a move: to the table, unless our quoted email is still in them."""
    answered = _answered_email(seat, message)
    try:
        talk.post(seat, text, via=TalkMessage.Via.EMAIL, sent_text=answered)
    except talk.Refused as refused:
        _answer(seat, "talk-refused", str(refused))
        return Outcome("refused-talk", str(refused))
    return Outcome("talk")


def _answered_email(seat: Seat, message: EmailMessage) -> str:
    """The text of our email this replies to (In-Reply-To), else our latest to the seat."""
    ours = Message.objects.filter(game_id=seat.game_id, to=seat.email, status=Message.Status.SENT)
    wanted = (message.get("In-Reply-To") or "").strip().strip("<>").partition("@")[0]
    found = ours.filter(token=wanted).first() if wanted else None
    found = found or ours.order_by("-sent_at").first()
    return found.body_text if found is not None else ""


def _play(seat: Seat, version: int, request) -> Outcome:
    game = seat.game
    game.refresh_from_db()
    if game.moved_since(version):
        return _refuse(seat, "stale", "The game moved on after the email you answered.")
    state = snapshots.current(game).state
    if state is None or state.seat_to_move != seat.position or seat.is_bot or seat.autopilot:
        return _refuse(seat, "not-your-turn", gettext("It is not your turn."))
    try:
        move = requested_move(state, seat.position, request, snapshots.at(game, version).state)
    except ValueError as unclear:
        return _refuse(seat, "unclear", str(unclear))
    try:
        services.submit_move(game, seat, move, game.version)
    except services.GameMovedOn:
        return _refuse(seat, "stale", gettext("The game moved on while your reply arrived."))
    except rules.IllegalMove as illegal:
        why = explain(state.board, illegal, game.seat_names())
        return _refuse(seat, "illegal", gettext("That move is not allowed: %(why)s") % {"why": why})
    return Outcome("played")


def requested_move(state, position: int, request, offered_state) -> rules.Move:
    """The move a reply asks for, or ValueError saying why it cannot be read."""
    if isinstance(request, reply_grammar.Pick):
        offered = suggestions.suggestions(offered_state, position)
        if not 1 <= request.number <= len(offered):
            raise ValueError(
                gettext("There is no suggestion %(number)s: the email offered 1 to %(last)s.")
                % {"number": request.number, "last": len(offered)}
            )
        return offered[request.number - 1].move
    if not request.names:
        raise ValueError(
            gettext('After "%(keyword)s:" name the lines you build, such as "%(example)s".')
            % {"keyword": reply_grammar.move_word(), "example": places.example_line(state.board)}
        )
    board = state.board
    try:
        if state.phase == rules.PLACING:
            if len(request.names) != 1 or places.looks_like_a_line(request.names[0]):
                raise ValueError(
                    gettext("Your first turn of a round places your start marker: name one point.")
                )
            return rules.PlaceStart(board.points[places.point_named(board, request.names[0])])
        if len(request.names) > 2:
            raise ValueError(gettext("A turn builds one or two lines."))
        coloured = frozenset(
            n for n, name in enumerate(request.names) if reply_grammar.is_coloured(name)
        )
        ids = [places.line_named(board, name) for name in request.names]
    except places.UnknownPlace as unknown:
        raise ValueError(str(unknown)) from None
    return rules.Build(tuple(board.line_points(line) for line in ids), coloured)


def _refuse(seat: Seat, code: str, why: str) -> Outcome:
    _answer(seat, code, why)
    return Outcome(f"refused-{code}", why)


def _answer(seat: Seat, code: str, why: str) -> None:
    """Tell the player why their reply was not played, a few times an hour at most."""
    hour_ago = timezone.now() - timedelta(hours=1)
    answered = Message.objects.filter(
        kind=emails.REPLY_ANSWER, to=seat.email, created_at__gte=hour_ago
    ).count()
    if answered >= ANSWERS_PER_HOUR:
        log.warning("not answering %s again this hour", seat.email)
        return
    emails.reply_answer(seat, code, why)
