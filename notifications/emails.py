"""Every email Railmail sends, one function per kind.

Each function renders its email, writes it to the outbox in the current transaction and
has it delivered after the commit: a rolled-back event never sends mail, and the outbox's
unique key (recipient, game, event, kind) means calling twice sends once. A function
returns the outbox row, or None when there is nobody to send to.
"""

import hashlib
from collections.abc import Sequence
from datetime import date

from django.conf import settings
from django.core import signing
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.urls import reverse

from accounts.models import normalize_email
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


def invitation(seat, *, reminder: bool = False) -> Message | None:
    """Invite ``seat``'s player to their game, or send them a fresh link to their seat.

    Sent once per link (a rotated link sends again); a reminder at most once a day.
    """
    from games.links import seat_url

    game = seat.game
    event = f"link-{seat.link_nonce}"
    if reminder:
        event += f"-reminder-{date.today().isoformat()}"
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
            "seat_url": seat_url(seat),
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
    stopped = kind not in outbox.UNSUPPRESSIBLE_KINDS and (
        Suppression.objects.filter(address=address).exists()
    )
    fields = {
        "seat": seat,
        "subject": subject[:250],
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
    if created and not stopped:
        outbox.queue_after_commit(message)
    return message


def recipients_for_game(seats: Sequence) -> list:
    """The seats of a game that get its emails: people, not bots, with an address."""
    return [seat for seat in seats if not seat.is_bot and seat.email]
