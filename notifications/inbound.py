"""Mail in: replies to game emails, with a move or words for the table. One handler.

Both ways in (the provider's inbound webhook and ``manage.py receive_mail``) call
``receive``. A reply is trusted only when it goes to a live reply address of ours, comes
from that seat's own address, and did not fail DKIM or DMARC where they are reported.
Each Message-ID is handled once, and automatic mail is ignored so that no loop with an
autoresponder can start. The player's own words are a move, a command, or table talk,
never when they hold a seat link, the reader's cities or our email.
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass
from datetime import timedelta
from email.message import Message as EmailMessage
from email.utils import getaddresses, parseaddr

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import translation
from django.utils.translation import gettext

from accounts.models import normalize_email
from games import links, rules, services
from games.derived import snapshots
from games.models import Game, Seat, TalkMessage
from games.services import talk
from games.words import suggestions
from games.words.city_names import city_name
from games.words.explanations import explain
from games.words.languages import language_for
from helpers import clock_source
from notifications import (
    consent_replies,
    emails,
    own_words,
    plan_reply,
    reply_addresses,
    reply_grammar,
)
from notifications.models import InboundMail, Message

log = logging.getLogger(__name__)

# Answers to replies an address gets per hour at most: an autoresponder that slips past
# the checks gets a few answers, never a loop.
ANSWERS_PER_HOUR = 5

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
    if (planned := plan_reply.read(text)) is not None:
        with translation.override(language_for(seat)):
            return Outcome(*plan_reply.handle(seat, version, planned))
    with translation.override(language_for(seat)):
        command = consent_replies.read(text)
        if command is not None:
            why = consent_replies.act(seat, command)
            if why is not None:
                return _refuse(seat, message, "consent", why)
            # Confirmed as a move by reply is: threaded under the reply.
            _answer(seat, message, "done-consent", str(consent_replies.DONE[command]))
            return Outcome(command)
        game = seat.game
        state = snapshots.current(game).state
        board = state.board if state is not None else rules.get_board(game.board)
        request = reply_grammar.read(text, board)
        if isinstance(request, reply_grammar.Mistyped):
            return _refuse(
                seat,
                message,
                "mistyped",
                gettext(
                    'Your reply begins like a move ("%(line)s"), but it is not one: it was '
                    "neither played nor posted to the table."
                )
                % {"line": request.line[:80]},
            )
        if request is None:
            return _talk(seat, text, message)
        return _play(seat, version, request, message)


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
    """The checks (dkim, dmarc) reported as failed: only failures count, since a sender
    may forge a "pass" but cannot remove the header our MTA adds above its own."""
    failed = []
    for header in message.get_all("Authentication-Results", []) or []:
        for method, result in AUTH_RESULT.findall(str(header)):
            if result.lower() in ("fail", "permerror") and method.lower() not in failed:
                failed.append(method.lower())
    return failed


def reply_text(message: EmailMessage) -> str:
    """What the person wrote, without the quoted parts."""
    return own_words.own_words(own_words.message_text(message))


def _talk(seat: Seat, text: str, message: EmailMessage) -> Outcome:
    """Words that are not a move: to the table, unless they may give the reader's hand or
    seat away."""
    answered = _answered_email(seat, message)
    why = private_reason(seat, text, answered)
    if why:
        _answer(seat, message, "talk-refused", why)
        return Outcome("refused-talk", why)
    try:
        talk.post(seat, text, via=TalkMessage.Via.EMAIL, sent_text=answered)
    except talk.Refused as refused:
        _answer(seat, message, "talk-refused", str(refused))
        return Outcome("refused-talk", str(refused))
    return Outcome("talk")


def private_reason(seat: Seat, text: str, sent_text: str) -> str:
    """Why ``text`` must not go to ``seat``'s table, in words, or "": it holds a seat
    link, several of the reader's own cities, or a piece of our email ``sent_text``."""
    tokens = [links.make_token(seat)]
    if seat.pending_link_nonce:
        tokens.append(links.make_token(seat, seat.pending_link_nonce))
    if own_words.quotes_ours(text, sent_text):
        return gettext(
            "Your reply still holds our email below it (we could not cut the quoted part "
            "off), and that may show your cities: it was not posted. Write your message "
            "on its own, or on the board page."
        )
    if own_words.holds_link(text, tokens):
        return gettext(
            "Your reply holds a link to your seat, which lets anyone who has it play for "
            "you: it was not posted to the table. Write your message on its own, or on the "
            "board page."
        )
    state = snapshots.current(seat.game).state
    hand = state.hands[seat.position] if state is not None and state.hands else ()
    if own_words.cities_named(text, [_spellings(city) for city in hand]) > own_words.CITIES_AT_MOST:
        return gettext(
            "Your reply names three or more of your own cities, which would show your hand to "
            "the table: it was not posted. Write your message without them, or on the board "
            "page."
        )
    return ""


def _spellings(city: str) -> list[str]:
    """A city's name in every language the site speaks."""
    names = [city]
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            names.append(city_name(city))
    return list(dict.fromkeys(names))


def _answered_email(seat: Seat, message: EmailMessage) -> str:
    """The text of our email this replies to (In-Reply-To), else our latest to the seat."""
    ours = Message.objects.filter(game_id=seat.game_id, to=seat.email, status=Message.Status.SENT)
    wanted = (message.get("In-Reply-To") or "").strip().strip("<>").partition("@")[0]
    found = ours.filter(token=wanted).first() if wanted else None
    found = found or ours.order_by("-sent_at").first()
    return found.body_text if found is not None else ""


def _play(seat: Seat, version: int, request, message: EmailMessage) -> Outcome:
    game = seat.game
    game.refresh_from_db()
    state = snapshots.current(game).state
    if game.status == Game.Status.FINISHED or (state is not None and state.is_over):
        return _refuse(
            seat,
            message,
            "game-over",
            gettext("This game is over: no more moves can be played in it."),
        )
    if game.moved_since(version):
        return _refuse(
            seat, message, "stale", gettext("The game moved on after the email you answered.")
        )
    if state is None or state.seat_to_move != seat.position or seat.is_bot or seat.autopilot:
        return _refuse(seat, message, "not-your-turn", gettext("It is not your turn."))
    try:
        move = requested_move(state, seat.position, request, snapshots.at(game, version).state)
    except reply_grammar.Unclear as unclear:
        return _refuse(seat, message, "unclear", str(unclear))
    except ValueError as unclear:
        return _refuse(seat, message, "unclear", str(unclear))
    try:
        services.submit_move(game, seat, move, game.version)
    except services.GameMovedOn:
        return _refuse(
            seat, message, "stale", gettext("The game moved on while your reply arrived.")
        )
    except rules.IllegalMove as illegal:
        why = explain(state.board, illegal, game.seat_names())
        return _refuse(
            seat, message, "illegal", gettext("That move is not allowed: %(why)s") % {"why": why}
        )
    game.refresh_from_db()
    emails.reply_played(
        seat,
        game.version,
        words=suggestions.move_words(state, move),
        ignored=request.ignored,
        in_reply_to=(message.get("Message-ID") or "").strip(),
    )
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
    return reply_grammar.requested(state, request.text)


def _refuse(seat: Seat, message: EmailMessage, code: str, why: str) -> Outcome:
    _answer(seat, message, code, why)
    return Outcome(f"refused-{code}", why)


def _answer(seat: Seat, message: EmailMessage, code: str, why: str) -> None:
    """Tell the player why their reply was not played, a few times an hour at most."""
    hour_ago = clock_source.now() - timedelta(hours=1)
    answered = Message.objects.filter(
        kind=emails.REPLY_ANSWER, to=seat.email, created_at__gte=hour_ago
    ).count()
    if answered >= ANSWERS_PER_HOUR:
        log.warning("not answering %s again this hour", seat.email)
        return
    # Threaded under the reply it answers.
    emails.reply_answer(seat, code, why, in_reply_to=(message.get("Message-ID") or "").strip())
