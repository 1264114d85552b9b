"""Every email Railmail sends, one function per kind.

Each function renders its email, writes it to the outbox in the current transaction and
has it delivered after the commit: a rolled-back event never sends mail, and the outbox's
unique key (recipient, game, event, kind) means calling twice sends once. A function
returns the outbox row, or None when there is nobody to send to.
"""

import hashlib
from datetime import date

from django.conf import settings
from django.core import signing
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from accounts.models import normalize_email
from accounts.text import one_line
from games import narration, rules
from games.links import fresh_seat_url, replay_url, seat_url
from notifications import outbox
from notifications.models import Message, Suppression

UNSUBSCRIBE_SALT = "notifications.unsubscribe"
RESUME_SALT = "notifications.resume"


# Signed tokens naming an address. They carry no timestamp: an unsubscribe link in an
# email from last year must still work.


def unsubscribe_token(address: str) -> str:
    return signing.dumps(normalize_email(address), salt=UNSUBSCRIBE_SALT)


def unsubscribe_url(address: str) -> str:
    path = reverse("notifications:unsubscribe", args=[unsubscribe_token(address)])
    return settings.SITE_URL + path


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
    game = seat.game
    event = f"link-{seat.link_nonce}"
    url = seat_url(seat)
    if reminder:
        event += f"-reminder-{date.today().isoformat()}"
    if fresh_link:
        event = f"fresh-{seat.pending_link_nonce}-{timezone.now():%Y%m%d%H%M%S%f}"
        url = fresh_seat_url(seat)
    inviter = game.created_by.get_full_name() if game.created_by else ""
    others = [s.name for s in game.seats.order_by("position") if s.pk != seat.pk]
    if seat.joined_at is None:
        what = "Reminder: you're invited" if reminder else "You're invited"
    else:
        what = "Your link to the board"
    return _write(
        "invitation",
        seat.email,
        game=game,
        seat=seat,
        event=event,
        subject=_subject(game, what),
        template="invitation",
        context={
            "seat": seat,
            "inviter": inviter,
            "others": others,
            "reminder": reminder,
            "joined": seat.joined_at is not None,
            "seat_url": url,
            "time_per_move": game.time_per_move,
        },
    )


def login_link(address: str, url: str) -> Message | None:
    """Send a sign-in link (made by the accounts app) to ``address``."""
    return _write(
        "login_link",
        address,
        # Every request is its own email: the link in it is new each time.
        event=hashlib.sha256(url.encode()).hexdigest()[:40],
        subject=f"Sign in to {settings.SITE_NAME}",
        template="login_link",
        context={"url": url},
    )


def _subject(game, what: str) -> str:
    return f"{what} · {game.display_name}"


def _write(
    kind: str,
    address: str,
    *,
    event: str,
    subject: str,
    template: str,
    context: dict,
    game=None,
    seat=None,
) -> Message | None:
    address = normalize_email(address or "")
    if not address:
        return None
    context = {
        "site_name": settings.SITE_NAME,
        "site_url": settings.SITE_URL,
        "game": game,
        "unsubscribe_url": unsubscribe_url(address),
        "subject": subject,
        **context,
    }
    headers = {
        # RFC 8058: the provider or mail client may POST here to unsubscribe in one click.
        "List-Unsubscribe": f"<{context['unsubscribe_url']}>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    }
    if game is not None:
        # Every email of a game refers to the same (never sent) root message, so that
        # mail clients thread them together.
        thread = outbox.game_thread_id(game.pk)
        headers |= {"In-Reply-To": thread, "References": thread}
    text = render_to_string(f"emails/{template}.txt", context).strip() + "\n"
    html = render_to_string(f"emails/{template}.html", context)
    stopped = Suppression.stops(address, kind)
    fields = {
        "seat": seat,
        # Names and titles go into the subject: never a line break in a header.
        "subject": one_line(subject)[:250],
        "body_text": text,
        "body_html": html,
        "headers": headers,
        "status": Message.Status.SUPPRESSED if stopped else Message.Status.PENDING,
    }
    try:
        # A savepoint: a duplicate must not break the caller's transaction.
        with transaction.atomic():
            message, created = Message.objects.get_or_create(
                to=address, game=game, event=event[:64], kind=kind, defaults=fields
            )
    except IntegrityError:
        # Written meanwhile by a concurrent transaction: that one sends it.
        return Message.objects.get(to=address, game=game, event=event[:64], kind=kind)
    return message


# Game emails. The receivers (notifications.receivers) call these from inside the write
# transaction of the events that cause them; the deadline scan calls reminder().


def wants_each_turn(seat) -> bool:
    """A seat without an account gets every turn email; an account may choose a digest."""
    return seat.user is None or seat.user.email_mode == seat.user.EmailMode.EACH_TURN


def wants_reminders(seat) -> bool:
    return seat.user is None or seat.user.reminders


def recipients_for_game(seats) -> list:
    """The seats of a game that get its emails: people, not bots, with an address."""
    return [seat for seat in seats if not seat.is_bot and seat.email]


def _to_everyone(kind: str, game, seats, *, event: str, subject: str, context) -> list[Message]:
    """Write one ``kind`` email to each person at the table; ``context(seat)`` fills each."""
    return [
        message
        for seat in recipients_for_game(seats)
        if (
            message := _write(
                kind,
                seat.email,
                game=game,
                seat=seat,
                event=event,
                subject=subject,
                template=kind,
                context=context(seat),
            )
        )
    ]


def your_turn(game, seat, state, log: list[dict]) -> Message | None:
    """Tell ``seat`` it is their move: what the others did since, their cities, the link.

    ``log`` is the game's event log (engine form) from the current round's start at
    least, ending with the events just recorded. Only the recipient's own cities are
    shown.
    """
    names = game.seat_names()
    return _write(
        "your_turn",
        seat.email,
        game=game,
        seat=seat,
        event=f"v{game.version}",
        subject=_subject(game, "Your turn"),
        template="your_turn",
        context={
            "seat": seat,
            "since": narration.since_last_turn(state, seat.position, log, names),
            "cities": list(state.hands[seat.position]),
            "missing_cost": _missing_cost(state, seat.position),
            "round": state.round,
            "scores": _table(state.scores, names),
            "deadline": game.deadline,
            "seat_url": seat_url(seat),
        },
    )


def round_scored(game, seats, event: dict, hands: list[list[str]]) -> list[Message]:
    """Tell everyone how a round ended: every seat's cities (now public) and the losses."""
    names = game.seat_names()
    rows = [
        {
            "name": names[position],
            "cities": hands[position],
            "joined": position in event["connected"],
            "loss": event["losses"][position],
            "score": event["scores"][position],
        }
        for position in range(len(names))
    ]
    return _to_everyone(
        rules.ROUND_SCORED,
        game,
        seats,
        event=f"round-{event['round']}",
        subject=_subject(game, f"Round {event['round']} scored"),
        context=lambda seat: {
            "seat": seat,
            "round": event["round"],
            "rows": rows,
            "ends_at": event["game_ends_at_score"],
            "seat_url": seat_url(seat),
        },
    )


def game_over(game, seats, state) -> list[Message]:
    """Tell everyone the final table and where to replay the game."""
    names = game.seat_names()
    winners = [names[position] for position in state.winners]
    table = sorted(_table(state.scores, names), key=lambda row: -row["score"])
    return _to_everyone(
        "game_over",
        game,
        seats,
        event="over",
        subject=_subject(game, f"Game over: {' and '.join(winners)} won"),
        context=lambda seat: {
            "seat": seat,
            "winners": winners,
            "won": seat.position in state.winners,
            "table": table,
            "replay_url": replay_url(game),
        },
    )


def bot_took_over(game, seats, taken) -> list[Message]:
    """Tell everyone that a bot now plays ``taken``'s seat after too many timeouts."""
    return _to_everyone(
        "bot_took_over",
        game,
        seats,
        event=f"v{game.version}",
        subject=_subject(game, f"A bot now plays for {taken.name}"),
        context=lambda seat: {
            "seat": seat,
            "taken": taken,
            "yours": seat.pk == taken.pk,
            "timeouts": game.bot_takeover_after,
            "seat_url": seat_url(seat),
        },
    )


def reminder_key(game, hours: int) -> str:
    """The outbox key of the reminder ``hours`` before the deadline of the game's turn now."""
    return f"v{game.version}-{hours}h"


def reminder(game, seat, hours: int) -> Message | None:
    """Remind ``seat`` that their move is due at the game's deadline, ``hours`` before it.

    Sent once per turn and reminder time: the key holds the game's version.
    """
    return _write(
        "reminder",
        seat.email,
        game=game,
        seat=seat,
        event=reminder_key(game, hours),
        subject=_subject(game, f"Reminder: your move is due within {hours} hours"),
        template="reminder",
        context={
            "seat": seat,
            "hours": hours,
            "deadline": game.deadline,
            "on_timeout": game.on_timeout,
            "seat_url": seat_url(seat),
        },
    )


def digest_key(day: date) -> str:
    """The outbox key of a day's digest: one a day per address."""
    return day.isoformat()


def digest(user, seats: list, day: date) -> Message | None:
    """One email a day listing the games waiting on ``user``'s move (``seats``)."""
    if not seats:
        return None
    games = [
        {"game": seat.game, "seat_url": seat_url(seat), "deadline": seat.game.deadline}
        for seat in seats
    ]
    count = len(games)
    return _write(
        "digest",
        user.email,
        event=digest_key(day),
        subject=f"{count} game{'s' if count != 1 else ''} waiting for your move",
        template="digest",
        context={"user": user, "games": games},
    )


def _table(scores, names) -> list[dict]:
    return [{"name": name, "score": score} for name, score in zip(names, scores, strict=True)]


def _missing_cost(state, position: int) -> int | None:
    if state.starts[position] is None:
        return None  # no start marker yet: nothing to measure from
    return rules.missing_cost(state, position)
