"""The outbox of every email Railmail sends, and the addresses that must not get mail."""

import secrets
from collections.abc import Iterable

from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


def new_message_token() -> str:
    return secrets.token_hex(16)


class Message(models.Model):
    """One email, written in the same transaction as the event that causes it.

    The row records who gets it, which kind, which game and event, and the facts the
    email is about (``facts``); the email itself is built when the row is delivered
    (notifications.compose) and kept once sent. It is unique per (recipient, game, event,
    kind): whatever runs twice, it is one email.
    """

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting to be sent")
        # Taken by a delivery that has not yet handed it to the mail server: released by
        # itself (back to pending) if that delivery dies, so it is never in doubt.
        CLAIMED = "claimed", _("Taken by a worker, not yet handed to the mail server")
        # Handed to the mail server, its answer not yet recorded: the only rows in doubt.
        SENDING = "sending", _("Being sent")
        SENT = "sent", pgettext_lazy("email status", "Sent")
        FAILED = "failed", pgettext_lazy("email status", "Failed")
        SUPPRESSED = "suppressed", _("Not sent: mail to the address is stopped")
        DROPPED = "dropped", _("Not sent: no longer needed")

    kind = models.CharField(max_length=32)
    to = models.EmailField()
    game = models.ForeignKey(
        "games.Game", null=True, blank=True, on_delete=models.CASCADE, related_name="emails"
    )
    seat = models.ForeignKey(
        "games.Seat", null=True, blank=True, on_delete=models.SET_NULL, related_name="emails"
    )
    event = models.CharField(
        max_length=64, help_text=_("Which event of the game caused it, e.g. v12 or round-2.")
    )
    facts = models.JSONField(
        default=dict, blank=True, help_text=_("What the email is about, for building it.")
    )
    # Random, so that a restored or staging database never reuses one (mail clients drop
    # a message whose Message-ID they have seen); the same for every try of this row.
    token = models.CharField(max_length=32, unique=True, default=new_message_token, editable=False)
    # Filled in when the email is built, at delivery.
    subject = models.CharField(max_length=250, blank=True)
    body_text = models.TextField(blank=True)
    body_html = models.TextField(blank=True)
    headers = models.JSONField(default=dict, blank=True)

    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(default=timezone.now)
    next_attempt_at = models.DateTimeField(default=timezone.now)
    attempts = models.PositiveSmallIntegerField(default=0)
    claimed_at = models.DateTimeField(null=True, blank=True)
    # Which delivery claimed the row: a worker claims several rows by one UPDATE and then
    # reads back exactly those it got; it hands each to the mail server only while the
    # row is still claimed under this token.
    claim = models.CharField(max_length=32, blank=True, editable=False)
    sent_at = models.DateTimeField(null=True, blank=True)
    stuck_reported_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text=_("When the operator was told this row was left 'being sent' by a worker."),
    )
    provider_id = models.CharField(max_length=200, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["to", "game", "event", "kind"], name="notifications_message_once"
            ),
            # NULLs are distinct in a unique index: emails outside any game need their own.
            models.UniqueConstraint(
                fields=["to", "event", "kind"],
                condition=Q(game__isnull=True),
                name="notifications_message_once_no_game",
            ),
        ]
        indexes = [
            # The sweep reads only the rows still waiting, the claims that have run out,
            # and those stuck mid-send.
            models.Index(
                fields=["next_attempt_at"],
                condition=Q(status="pending"),
                name="notifications_message_pending",
            ),
            models.Index(
                fields=["claimed_at"],
                condition=Q(status="claimed"),
                name="notifications_message_claimed",
            ),
            models.Index(
                fields=["claimed_at"],
                condition=Q(status="sending"),
                name="notifications_message_sending",
            ),
            # The digest scan: who has had today's digest.
            models.Index(
                fields=["event"],
                condition=Q(kind="digest"),
                name="notifications_message_digests",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} to {self.to} ({self.status})"


class Suppression(models.Model):
    """An address Railmail must not mail, and why. Deleting the row turns mail back on."""

    class Reason(models.TextChoices):
        BOUNCED = "bounced", _("Mail to it bounced")
        COMPLAINED = "complained", _("It reported our mail as spam")
        UNSUBSCRIBED = "unsubscribed", _("It unsubscribed")

    address = models.EmailField(unique=True)
    reason = models.CharField(max_length=16, choices=Reason.choices)
    detail = models.TextField(blank=True, help_text=_("What the provider reported."))
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.address} ({self.reason})"

    @classmethod
    def for_address(cls, address: str) -> "Suppression | None":
        """Why mail to ``address`` is stopped, or None when it is not."""
        return cls.objects.filter(address=address.strip().lower()).first()

    @classmethod
    def stops(cls, address: str, kind: str, *, seat=None) -> bool:
        """Whether mail of ``kind`` to ``address`` must not be sent. ``seat``: the seat
        mailed at that address; when it was read with MAIL_STOPPED_COLUMNS (a board page's
        table is), they answer without a query."""
        address = address.strip().lower()
        columns = mail_stopped_columns(seat) if seat is not None else None
        if columns is None or seat.email.lower() != address:
            return (address, kind) in cls.stopping([(address, kind)])
        if kind in UNSUPPRESSIBLE_KINDS:
            return False
        return columns["suppression"] is not None or kind in (columns["stopped_kinds"] or ())

    @classmethod
    def stopping(cls, mails: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
        """Which of the (address, kind) ``mails`` must not be sent: the one check (a
        stopped address, or a kind its reader stopped), in two queries for any number."""
        wanted = {
            (a.strip().lower(), kind) for a, kind in mails if kind not in UNSUPPRESSIBLE_KINDS
        }
        if not wanted:
            return set()
        addresses = {address for address, _kind in wanted}
        stopped = set(cls.objects.filter(address__in=addresses).values_list("address", flat=True))
        chosen = MailPreference.objects.filter(address__in=addresses)
        kinds = dict(chosen.values_list("address", "stopped_kinds"))
        return {
            (address, kind)
            for address, kind in wanted
            if address in stopped or kind in kinds.get(address, ())
        }


class MailPreference(models.Model):
    """What the reader of an address chose on the unsubscribe page: which kinds of email
    to stop, and, for an address without an account, a daily digest instead of an email
    each turn (an account keeps that choice on itself)."""

    address = models.EmailField(unique=True)
    digest = models.BooleanField(
        default=False, help_text=_("A daily digest of waiting games instead of each turn's email.")
    )
    stopped_kinds = models.JSONField(
        default=list, blank=True, help_text=_("Kinds of email not to send (outbox kinds).")
    )
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return self.address


# Why mail to a seat's address is stopped or lessened, as expressions of the seat's row:
# a board page reads them with the rest of its table (games.pages.table_read, one query), and
# neither the page nor the emails of a move made there ask again. Addresses are stored
# normalized (lower case).
_preference = MailPreference.objects.filter(address=models.OuterRef("email"))
MAIL_STOPPED_COLUMNS = {
    "suppression": models.Subquery(
        Suppression.objects.filter(address=models.OuterRef("email")).values("reason")[:1]
    ),
    "digest": models.Subquery(_preference.values("digest")[:1]),
    "stopped_kinds": models.Subquery(_preference.values("stopped_kinds")[:1]),
}


def mail_stopped_columns(seat) -> dict | None:
    """``seat``'s MAIL_STOPPED_COLUMNS when it was read with them, else None."""
    if all(hasattr(seat, name) for name in MAIL_STOPPED_COLUMNS):
        return {name: getattr(seat, name) for name in MAIL_STOPPED_COLUMNS}
    return None


# A login link is asked for by the person who reads it, there and then: an unsubscribe
# from game mail must not lock them out. Bounces and complaints still stop it.
UNSUPPRESSIBLE_KINDS = {"login_link"}


class InboundMail(models.Model):
    """A reply the site received, and what became of it: each Message-ID is handled once."""

    message_id = models.CharField(max_length=250, unique=True)
    sender = models.CharField(max_length=254, blank=True)
    recipient = models.CharField(max_length=254, blank=True)
    seat = models.ForeignKey(
        "games.Seat", null=True, blank=True, on_delete=models.SET_NULL, related_name="replies"
    )
    received_at = models.DateTimeField(default=timezone.now)
    outcome = models.CharField(max_length=32)
    detail = models.TextField(blank=True)

    class Meta:
        ordering = ["-received_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.message_id} from {self.sender}: {self.outcome}"
