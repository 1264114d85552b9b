"""What a reader may choose when they unsubscribe, and what each choice does.

A one-click unsubscribe (RFC 8058) must never silently stop a game in progress: for a
game's emails it moves the reader to the daily digest, the least mail that still lets
them play.
"""

from __future__ import annotations

from django.db import models, transaction
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.models import User, normalize_email
from games.models import Seat
from notifications import emails
from notifications.models import MailPreference, Suppression

# The emails of games one plays in: the one-click unsubscribe of these moves the reader
# to the daily digest.
GAME_KINDS = (
    emails.YOUR_TURN,
    emails.REMINDER,
    emails.ROUND_SCORED,
    emails.GAME_OVER,
    emails.BOT_TOOK_OVER,
)

# What each kind is called, as in "You stopped invitations to games, turn emails."
KIND_NAMES = {
    emails.INVITATION: _("invitations to games"),
    emails.YOUR_TURN: _("turn emails"),
    emails.REMINDER: _("reminders before a move is due"),
    emails.ROUND_SCORED: _("round results"),
    emails.GAME_OVER: _("game results"),
    emails.BOT_TOOK_OVER: _("news of bots taking seats"),
    emails.DIGEST: _("the daily digest"),
    emails.REPLY_PLAYED: _("confirmations of moves played by reply"),
    emails.SEAT_DECLINED: _("news of declined invitations"),
}

# The choice that stops one kind, as the unsubscribe page offers it: whole sentences, so
# that each language words them its own way.
STOP_KIND_LABELS = {
    emails.INVITATION: _("Stop invitations to games"),
    emails.YOUR_TURN: _("Stop turn emails"),
    emails.REMINDER: _("Stop reminders before a move is due"),
    emails.ROUND_SCORED: _("Stop round results"),
    emails.GAME_OVER: _("Stop game results"),
    emails.BOT_TOOK_OVER: _("Stop news of bots taking seats"),
    emails.DIGEST: _("Stop the daily digest"),
    emails.REPLY_PLAYED: _("Stop confirmations of moves played by reply"),
    emails.SEAT_DECLINED: _("Stop news of declined invitations"),
}

# What the page says once a kind is stopped.
KIND_STOPPED = {
    emails.INVITATION: _("You will get no more invitations to games at this address."),
    emails.YOUR_TURN: _("You will get no more turn emails at this address."),
    emails.REMINDER: _("You will get no more reminders before a move is due at this address."),
    emails.ROUND_SCORED: _("You will get no more round results at this address."),
    emails.GAME_OVER: _("You will get no more game results at this address."),
    emails.BOT_TOOK_OVER: _("You will get no more news of bots taking seats at this address."),
    emails.DIGEST: _("You will get no more daily digests at this address."),
    emails.REPLY_PLAYED: _(
        "You will get no more confirmations of moves played by reply at this address."
    ),
    emails.SEAT_DECLINED: _("You will get no more news of declined invitations at this address."),
}


class Choice(models.TextChoices):
    DIGEST = "digest", _("One email a day listing the games waiting for my move")
    STOP_KIND = "stop_kind", _("Stop this kind of email")
    NO_INVITATIONS = "no_invitations", _("Never invite me to a game again")
    STOP_ALL = "stop_all", _("Stop every email")


def one_click(kind: str | None) -> str:
    """What the one-click unsubscribe of a ``kind`` email does (None: a link from before
    links named their kind, which stopped everything)."""
    if kind is None:
        return Choice.STOP_ALL
    if kind in GAME_KINDS:
        return Choice.DIGEST
    if kind == emails.INVITATION:
        return Choice.NO_INVITATIONS
    return Choice.STOP_KIND


def choices_for(kind: str | None) -> list[tuple[str, str]]:
    """The choices the page offers for a ``kind`` email, the one-click one first."""
    offered = []
    if kind in GAME_KINDS:
        offered.append((Choice.DIGEST, Choice.DIGEST.label))
    if kind == emails.INVITATION:
        offered.append((Choice.NO_INVITATIONS, Choice.NO_INVITATIONS.label))
    elif kind in KIND_NAMES:
        offered.append((Choice.STOP_KIND, STOP_KIND_LABELS[kind]))
    offered.append((Choice.STOP_ALL, Choice.STOP_ALL.label))
    return offered


@transaction.atomic
def choose(address: str, kind: str | None, choice: str) -> str:
    """Do what the reader of ``address`` chose; return what was done, in words."""
    address = normalize_email(address)
    if choice == Choice.STOP_ALL:
        Suppression.objects.get_or_create(
            address=address, defaults={"reason": Suppression.Reason.UNSUBSCRIBED}
        )
        return gettext("You will get no more emails from us at this address.")
    if choice == Choice.DIGEST:
        account = User.objects.filter(email=address).first()
        if account is not None:
            account.email_mode = User.EmailMode.DAILY_DIGEST
            account.save(update_fields=["email_mode"])
        else:
            MailPreference.objects.update_or_create(address=address, defaults={"digest": True})
        return gettext(
            "Instead of an email each turn, you will get one email a day listing the games "
            "waiting for your move."
        )
    stopped = emails.INVITATION if choice == Choice.NO_INVITATIONS else kind
    if stopped not in KIND_NAMES:
        raise ValueError(f"nothing to stop for {kind!r}")
    preference, _created = MailPreference.objects.get_or_create(address=address)
    if stopped not in preference.stopped_kinds:
        preference.stopped_kinds = [*preference.stopped_kinds, stopped]
        preference.save(update_fields=["stopped_kinds", "updated_at"])
    return str(KIND_STOPPED[stopped])


def stopped_columns(position: int | models.Expression) -> tuple[models.Expression, ...]:
    """Why mail to a seat's address is stopped, as expressions of its row in a query of
    seats: read for the seat at ``position`` only (NULL for the others). A view that reads
    the seat's table in one statement reads these with it (``stopped_from``, which says
    nothing for a bot's seat)."""
    viewer = models.Q(position=position)
    preference = MailPreference.objects.filter(address=models.OuterRef("email"))
    reads = (
        Suppression.objects.filter(address=models.OuterRef("email")).values("reason")[:1],
        preference.values("digest")[:1],
        preference.values("stopped_kinds")[:1],
    )
    return tuple(
        models.Case(models.When(viewer, then=models.Subquery(read)), default=None) for read in reads
    )


def stopped_from(seat: Seat, reason: str | None, digest: bool | None, kinds) -> dict | None:
    """Why mail to ``seat``'s address is stopped or lessened, and the token to turn it back
    on, from the values of ``stopped_columns`` for ``seat``: plain values, as the board
    page's cache key holds them."""
    if seat.is_bot or not seat.email:
        return None
    address = seat.email.lower()
    stopped = [str(KIND_NAMES[kind]) for kind in kinds or ()]
    if reason is None and not stopped and not digest:
        return None
    return {
        "suppression": {"reason": reason, "address": address} if reason else None,
        "address": address,
        "digest": bool(digest),
        "kinds": stopped,
        "token": emails.resume_token(address),
    }
