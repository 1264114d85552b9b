"""Every email Railmail sends, one function per kind: each queues its outbox row.

A row records only facts; notifications.compose builds the email at delivery, so it can
draw the newest position or drop a your-turn email already seen. Rows are written in the
caller's transaction (a rolled-back event sends nothing), and the unique key (recipient,
game, event, kind) makes a second call send nothing more. The emails events cause are
returned unwritten, for the write path to insert with the events.
"""

import hashlib
from datetime import date, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import translation

from accounts.models import normalize_email
from games import rules
from games.services.clock import quiet_hours_end
from helpers import clock_source
from helpers import signing as timeless
from notifications import plan_mail
from notifications.models import Message

UNSUBSCRIBE_SALT = "notifications.unsubscribe"
RESUME_SALT = "notifications.resume"

# The kinds of email, one list each (List-Id).
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
SEAT_DECLINED = "seat_declined"

CHANNEL_CONFIRM = "channel_confirm"
CHANNEL_OFF = "channel_off"

# What a muted game no longer sends: all but the player's own turn and direct answers.
MUTED_KINDS = (ROUND_SCORED, GAME_OVER, BOT_TOOK_OVER)


# Signed tokens naming an address. Their age is never checked (an unsubscribe link in an
# email from last year must still work), so they carry no time: helpers.signing reads the
# older ones, which do.


def unsubscribe_token(address: str, kind: str | None = None) -> str:
    """A token naming ``address`` and the kind of email its unsubscribe link came in."""
    address = normalize_email(address)
    payload = address if kind is None else {"a": address, "k": kind}
    return timeless.dumps(payload, salt=UNSUBSCRIBE_SALT)


def unsubscribe_url(address: str, kind: str | None = None) -> str:
    path = reverse("notifications:unsubscribe", args=[unsubscribe_token(address, kind)])
    return settings.SITE_URL + path


def unsubscribe_request(token: str) -> tuple[str, str | None]:
    """The address and kind a token names (kind None in old tokens); raises
    signing.BadSignature if it was tampered with."""
    value = timeless.loads(token, salt=UNSUBSCRIBE_SALT)
    if isinstance(value, str):
        return value, None
    return value["a"], value.get("k")


def resume_token(address: str) -> str:
    return timeless.dumps(normalize_email(address), salt=RESUME_SALT)


def address_for_token(token: str, salt: str) -> str:
    """The address a token names; raises signing.BadSignature if it was tampered with."""
    return timeless.loads(token, salt=salt)


def invitation(seat, *, reminder: bool = False, fresh_link: bool = False) -> Message | None:
    """Invite ``seat``'s player, or send a fresh link: once per link, a reminder at most
    daily, a fresh link each time asked (the asking page's rate limits bound it)."""
    nonce = seat.link_nonce
    event = f"link-{nonce}"
    if reminder:
        event += f"-reminder-{clock_source.now().date().isoformat()}"
    if fresh_link:
        nonce = seat.pending_link_nonce
        event = f"fresh-{nonce}-{clock_source.now():%Y%m%d%H%M%S%f}"
    return queue(
        INVITATION,
        seat.email,
        game=seat.game,
        seat=seat,
        event=event,
        facts={"nonce": nonce, "reminder": reminder, "fresh_link": fresh_link},
    )


def seat_declined(seat) -> list[Message]:
    """Tell the creator that ``seat``'s player declined, or the joined players when the
    creator has no account (a rematch through links)."""
    game = seat.game
    facts = {"seat": seat.position, "name": seat.name}
    event = f"declined-{seat.position}-{seat.link_nonce}"
    if game.created_by is not None:
        row = queue(SEAT_DECLINED, game.created_by.email, game=game, event=event, facts=facts)
        return [row] if row else []
    waiting = game.seats.filter(joined_at__isnull=False, is_bot=False).exclude(email="")
    rows = [
        queue(SEAT_DECLINED, other.email, game=game, seat=other, event=event, facts=facts)
        for other in waiting
    ]
    return [row for row in rows if row]


def login_link(address: str, url: str) -> Message | None:
    return queue(
        LOGIN_LINK,
        address,
        # The link is new each time, so each request is its own email.
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
    """The unwritten outbox row of one email, due ``after`` from now; None without an
    address. Whether mail is stopped is decided only at delivery."""
    address = normalize_email(address or "")
    if not address:
        return None
    stopped = seat is not None and seat.notices_muted and kind in MUTED_KINDS
    return Message(
        to=address,
        game=game,
        event=event[:64],
        kind=kind,
        seat=seat,
        facts=facts,
        status=Message.Status.SUPPRESSED if stopped else Message.Status.PENDING,
        next_attempt_at=clock_source.now() + after,
    )


def write(row: Message | None) -> Message | None:
    """Write ``row``, or return the same email (recipient, game, event, kind) if written."""
    if row is None:
        return None
    try:
        # A savepoint, so a duplicate leaves the caller's transaction whole.
        with transaction.atomic():
            row.save(force_insert=True)
            return row
    except IntegrityError:
        key = {"to": row.to, "game": row.game, "event": row.event, "kind": row.kind}
        written = Message.objects.filter(**key).first()
        if written is None:
            raise  # not a duplicate
        return written


def queue(kind: str, address: str, **details) -> Message | None:
    """Write the outbox row of one email (``details`` as outbox_row() takes them)."""
    return write(outbox_row(kind, address, **details))


# Game emails: the receivers insert the first four's rows with the events that cause them.


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
    """Tell ``seat`` it is their move at ``version``: the row, unwritten.

    It waits the grace period, so a player who sees the board first gets none; with
    ``plan_stopped`` it waits out the player's vacation, as plans play on during one.
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
    """The your-turn email for a player who looked and left, since the look dropped the
    one waiting its grace; sent SEEN_BUT_NOT_PLAYED later unless they moved."""
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
    """Tell everyone how round ``round_number`` ended: the rows, unwritten."""
    return _to_everyone(
        ROUND_SCORED,
        game,
        seats,
        event=f"round-{round_number}",
        facts={"round": round_number, "version": version},
    )


def game_over(game, seats, version: int, reason: str | None = None) -> list[Message]:
    """Tell everyone the final table (early for ``reason`` if given): the rows, unwritten."""
    facts = {"version": version} if reason is None else {"version": version, "reason": reason}
    return _to_everyone(GAME_OVER, game, seats, event="over", facts=facts)


def bot_took_over(game, seats, taken, version: int) -> list[Message]:
    """Tell everyone a bot now plays ``taken``'s seat: the rows, unwritten."""
    return _to_everyone(
        BOT_TOOK_OVER,
        game,
        seats,
        event=f"v{version}",
        facts={"seat": taken.position, "version": version},
    )


def nudge(game, seat, by: int, version: int) -> Message | None:
    """A nudge to the player to move: a reminder kind, so stopping reminders stops these
    too; the row, unwritten, waiting out their quiet hours."""
    row = outbox_row(
        REMINDER,
        seat.email,
        game=game,
        seat=seat,
        event=f"nudge-v{version}",
        facts={"nudged_by": by, "version": version},
    )
    awake_at = quiet_hours_end(seat, clock_source.now())
    if row is not None and awake_at is not None:
        row.next_attempt_at = awake_at
    return row


def reminder_key(game, hours: int) -> str:
    """The outbox key of the reminder ``hours`` before the deadline of the game's turn now."""
    return f"v{game.version}-{hours}h"


def reminder(game, seat, hours: int) -> Message | None:
    """Remind ``seat`` ``hours`` before the deadline, once per turn and time. Never
    dropped: it is the email that saves a seat from its deadline."""
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
    """One email a day to ``address`` listing the games waiting on its reader."""
    return queue(DIGEST, address, event=digest_key(day), facts={"address": address})


def reply_answer(seat, code: str, why: str, *, in_reply_to: str = "") -> Message | None:
    """Tell ``seat``'s player why their reply was not played, with the position now."""
    return queue(
        REPLY_ANSWER,
        seat.email,
        game=seat.game,
        seat=seat,
        event=f"answer-{clock_source.now():%Y%m%d%H%M%S%f}",
        facts={"code": code, "why": why, "in_reply_to": in_reply_to[:250]},
    )


def reply_played(
    seat, version: int, *, words: str, ignored: str, in_reply_to: str
) -> Message | None:
    """Tell ``seat``'s player their reply's move was played, in answer to the reply;
    ``ignored`` is what it said after the move. A kind of its own, so it can be stopped."""
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
        event=f"channel-off-{channel.pk}-{clock_source.now():%Y%m%d%H%M%S}",
        facts={"channel": channel.pk},
    )
