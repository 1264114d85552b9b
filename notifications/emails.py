"""Every email Railmail sends, one function per kind: each queues its email.

A function writes an outbox row that records who gets the email, which kind, the game
and the event that cause it, and the facts it is about; notifications.compose builds the
email from them when the row is delivered (so delivery can draw the newest position, or
drop a your-turn email the player has already seen). The row is written in the current
transaction and delivered after the commit: a rolled-back event never sends mail, and
the outbox's unique key (recipient, game, event, kind) means calling twice sends once. A
function returns the outbox row, or None when there is nobody to send to.

The emails that events cause (your turn, a round scored, the game over, a bot taking a
seat) are returned unwritten instead: the write path inserts them in the statement that
appends the events (games.signals.events_recorded). ``write()`` writes such a row.
"""

import hashlib
from datetime import date, timedelta

from django.conf import settings
from django.core import signing
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone, translation

from accounts.models import normalize_email
from games import rules
from notifications import plan_mail
from notifications.models import Message, Suppression

UNSUBSCRIBE_SALT = "notifications.unsubscribe"
RESUME_SALT = "notifications.resume"

# The kinds of email, one list each (List-Id), as the outbox's ``kind`` names them.
INVITATION = "invitation"
LOGIN_LINK = "login_link"
YOUR_TURN = "your_turn"
REMINDER = "reminder"
ROUND_SCORED = rules.ROUND_SCORED
GAME_OVER = "game_over"
BOT_TOOK_OVER = "bot_took_over"
DIGEST = "digest"
REPLY_ANSWER = "reply_answer"
REPLY_PLAYED = "reply_played"

# Channels besides email (notifications.channel_delivery): confirming a seat's channel,
# and a channel turned off because it kept failing.
CHANNEL_CONFIRM = "channel_confirm"
CHANNEL_OFF = "channel_off"

# What a player who muted a game (games.services.mutes) no longer gets of it: everything
# but the notices of their own turn (your turn, reminders, nudges) and direct answers.
MUTED_KINDS = (ROUND_SCORED, GAME_OVER, BOT_TOOK_OVER)


# Signed tokens naming an address. They carry no timestamp: an unsubscribe link in an
# email from last year must still work.


def unsubscribe_token(address: str, kind: str | None = None) -> str:
    """A token naming ``address`` and the kind of email its unsubscribe link came in."""
    address = normalize_email(address)
    payload = address if kind is None else {"a": address, "k": kind}
    return signing.dumps(payload, salt=UNSUBSCRIBE_SALT)


def unsubscribe_url(address: str, kind: str | None = None) -> str:
    path = reverse("notifications:unsubscribe", args=[unsubscribe_token(address, kind)])
    return settings.SITE_URL + path


def unsubscribe_request(token: str) -> tuple[str, str | None]:
    """The address and kind an unsubscribe token names (kind None for a token from before
    tokens named it); raises signing.BadSignature if it was tampered with."""
    value = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    if isinstance(value, str):
        return value, None
    return value["a"], value.get("k")


def resume_token(address: str) -> str:
    return signing.dumps(normalize_email(address), salt=RESUME_SALT)


def address_for_token(token: str, salt: str) -> str:
    """The address a token names; raises signing.BadSignature if it was tampered with."""
    return signing.loads(token, salt=salt)


def invitation(seat, *, reminder: bool = False, fresh_link: bool = False) -> Message | None:
    """Invite ``seat``'s player to their game, or send them a fresh link to their seat.

    Sent once per link (a rotated link sends again); a reminder at most once a day; a
    fresh link each time it is asked for (the rate limits of the asking page bound it).
    """
    nonce = seat.link_nonce
    event = f"link-{nonce}"
    if reminder:
        event += f"-reminder-{date.today().isoformat()}"
    if fresh_link:
        nonce = seat.pending_link_nonce
        event = f"fresh-{nonce}-{timezone.now():%Y%m%d%H%M%S%f}"
    return queue(
        INVITATION,
        seat.email,
        game=seat.game,
        seat=seat,
        event=event,
        facts={"nonce": nonce, "reminder": reminder, "fresh_link": fresh_link},
    )


def login_link(address: str, url: str) -> Message | None:
    """Send a sign-in link (made by the accounts app) to ``address``."""
    return queue(
        LOGIN_LINK,
        address,
        # Every request is its own email: the link in it is new each time.
        event=hashlib.sha256(url.encode()).hexdigest()[:40],
        # Asked for on a page: without an account's choice, the email is in its language.
        facts={"url": url, "language": translation.get_language()},
    )


def outbox_row(
    kind: str,
    address: str,
    *,
    event: str,
    facts: dict,
    game=None,
    seat=None,
    after: timedelta = timedelta(0),
) -> Message | None:
    """The outbox row of one email, to be built and sent ``after`` from now, not written
    yet; None when there is no address."""
    address = normalize_email(address or "")
    if not address:
        return None
    stopped = Suppression.stops(address, kind, seat=seat) or (
        seat is not None and seat.notices_muted and kind in MUTED_KINDS
    )
    return Message(
        to=address,
        game=game,
        event=event[:64],
        kind=kind,
        seat=seat,
        facts=facts,
        status=Message.Status.SUPPRESSED if stopped else Message.Status.PENDING,
        next_attempt_at=timezone.now() + after,
    )


def write(row: Message | None) -> Message | None:
    """Write an unwritten outbox ``row``; if the same email (recipient, game, event, kind)
    is written already, return that one instead."""
    if row is None:
        return None
    try:
        # Nearly always a new row (a new move, a new day): inserted at once, in a savepoint
        # so that a duplicate leaves the caller's transaction whole.
        with transaction.atomic():
            row.save(force_insert=True)
            return row
    except IntegrityError:
        # Written before, or meanwhile by a concurrent transaction: that one sends it.
        key = {"to": row.to, "game": row.game, "event": row.event, "kind": row.kind}
        written = Message.objects.filter(**key).first()
        if written is None:
            raise  # not a duplicate
        return written


def queue(kind: str, address: str, **details) -> Message | None:
    """Write the outbox row of one email (``details`` as outbox_row() takes them: event,
    facts, game, seat, after)."""
    return write(outbox_row(kind, address, **details))


# Game emails. The receivers (notifications.receivers) call the first four while the
# events that cause them are being recorded, and hand back their rows, unwritten, to be
# inserted with the events; the reminder task calls reminder().


def wants_reminders(seat) -> bool:
    return seat.user is None or seat.user.reminders


def recipients_for_game(seats) -> list:
    """The seats of a game that get its emails: people, not bots, with an address."""
    return [seat for seat in seats if not seat.is_bot and seat.email]


def _to_everyone(kind: str, game, seats, *, event: str, facts: dict) -> list[Message]:
    """One ``kind`` email to each person at the table: their rows, unwritten."""
    return [
        row
        for seat in recipients_for_game(seats)
        if (row := outbox_row(kind, seat.email, game=game, seat=seat, event=event, facts=facts))
    ]


def your_turn(
    game, seat, version: int, digest: str, plan_stopped: str | None = None
) -> Message | None:
    """Tell ``seat`` it is their move, at ``version`` of the log (whose digest is
    ``digest``): the row, unwritten. ``plan_stopped``: why the seat's build plan stopped
    (games.services.plans), said in the email, which then waits for the end of the
    player's vacation (plans play on during one).

    It waits RAILMAIL_TURN_EMAIL_GRACE seconds first, and is dropped at delivery if the
    player has seen that position on their board page meanwhile, or has moved.
    """
    facts = {"version": version, "digest": digest}
    after = timedelta(seconds=settings.RAILMAIL_TURN_EMAIL_GRACE)
    if plan_stopped:
        facts["plan_stopped"] = plan_stopped
        after = max(after, plan_mail.wait_for_vacation(seat))
    return outbox_row(
        YOUR_TURN, seat.email, game=game, seat=seat, event=f"v{version}", facts=facts, after=after
    )


# How long after a look at the board a turn not played yet still gets its email.
SEEN_BUT_NOT_PLAYED = timedelta(hours=1)


def your_turn_after_a_look(game, seat, version: int) -> Message | None:
    """The your-turn email of ``version`` for a player who looked at the board and left:
    sent SEEN_BUT_NOT_PLAYED later unless they have moved by then, or got the email
    meanwhile (the look drops the your-turn email still waiting its grace)."""
    return queue(
        YOUR_TURN,
        seat.email,
        game=game,
        seat=seat,
        event=f"v{version}-seen",
        facts={"version": version, "digest": game.log_digest, "after_a_look": True},
        after=SEEN_BUT_NOT_PLAYED,
    )


def round_scored(game, seats, round_number: int, version: int) -> list[Message]:
    """Tell everyone how round ``round_number`` ended (scored by event ``version``): the
    rows, unwritten."""
    return _to_everyone(
        ROUND_SCORED,
        game,
        seats,
        event=f"round-{round_number}",
        facts={"round": round_number, "version": version},
    )


def game_over(game, seats, version: int, reason: str | None = None) -> list[Message]:
    """Tell everyone the final table and where to replay the game (it ended at
    ``version``, early for ``reason`` if given): the rows, unwritten."""
    facts = {"version": version} if reason is None else {"version": version, "reason": reason}
    return _to_everyone(GAME_OVER, game, seats, event="over", facts=facts)


def bot_took_over(game, seats, taken, version: int) -> list[Message]:
    """Tell everyone that a bot now plays ``taken``'s seat after too many timeouts: the
    rows, unwritten."""
    return _to_everyone(
        BOT_TOOK_OVER,
        game,
        seats,
        event=f"v{version}",
        facts={"seat": taken.position, "version": version},
    )


def nudge(game, seat, by: int, version: int) -> Message | None:
    """A player's nudge to ``seat``, the player to move (by the seat at ``by``, event
    ``version``): a reminder, so that who stops reminders stops these too; the row,
    unwritten."""
    return outbox_row(
        REMINDER,
        seat.email,
        game=game,
        seat=seat,
        event=f"nudge-v{version}",
        facts={"nudged_by": by, "version": version},
    )


def reminder_key(game, hours: int) -> str:
    """The outbox key of the reminder ``hours`` before the deadline of the game's turn now."""
    return f"v{game.version}-{hours}h"


def reminder(game, seat, hours: int) -> Message | None:
    """Remind ``seat`` that their move is due at the game's deadline, ``hours`` before it.

    Sent once per turn and reminder time: the key holds the game's version. Never
    dropped: it is the email that saves a seat from its deadline.
    """
    return queue(
        REMINDER,
        seat.email,
        game=game,
        seat=seat,
        event=reminder_key(game, hours),
        facts={"hours": hours, "version": game.version},
    )


def digest_key(day: date) -> str:
    """The outbox key of a day's digest: one a day per address."""
    return day.isoformat()


def digest(address: str, day: date) -> Message | None:
    """One email a day to ``address`` listing the games waiting on its reader's move (those
    still waiting when it is delivered)."""
    return queue(DIGEST, address, event=digest_key(day), facts={"address": address})


def reply_answer(seat, code: str, why: str, *, in_reply_to: str = "") -> Message | None:
    """Tell ``seat``'s player why their reply was not played (``code``: stale, illegal,
    unclear, not-your-turn, talk-refused), with the position as it is now."""
    return queue(
        REPLY_ANSWER,
        seat.email,
        game=seat.game,
        seat=seat,
        event=f"answer-{timezone.now():%Y%m%d%H%M%S%f}",
        facts={"code": code, "why": why, "in_reply_to": in_reply_to[:250]},
    )


def reply_played(
    seat, version: int, *, words: str, ignored: str, in_reply_to: str
) -> Message | None:
    """Tell ``seat``'s player that the move of their reply was played (it made ``version``
    of the log): ``words`` say the move, ``ignored`` what the reply said after it, and the
    email answers their reply (``in_reply_to``, its Message-ID). One per move; the player
    may stop them (they are a kind of their own)."""
    return queue(
        REPLY_PLAYED,
        seat.email,
        game=seat.game,
        seat=seat,
        event=f"played-v{version}",
        facts={
            "version": version,
            "words": words,
            "ignored": ignored[:600],
            "in_reply_to": in_reply_to[:250],
        },
    )


def channel_confirm(seat, channel) -> Message | None:
    """Ask ``seat``'s player to confirm the channel added through the seat's link: a link
    can be forwarded, the seat's email cannot."""
    return queue(
        CHANNEL_CONFIRM,
        seat.email,
        game=seat.game,
        seat=seat,
        event=f"channel-{channel.pk}",
        facts={"channel": channel.pk},
    )


def channel_off(address: str, channel) -> Message | None:
    """Tell a channel's owner that it kept failing and is turned off."""
    return queue(
        CHANNEL_OFF,
        address,
        game=channel.game if channel.game_id else (channel.seat.game if channel.seat_id else None),
        event=f"channel-off-{channel.pk}-{timezone.now():%Y%m%d%H%M%S}",
        facts={"channel": channel.pk},
    )
