"""The outbox of every email Railmail sends, and the addresses that must not get mail."""

import secrets
from collections.abc import Iterable

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from helpers import clock_source


def new_message_token() -> str:
    return secrets.token_hex(16)


class Message(models.Model):
    """One email, written in the same transaction as the event that causes it; built at
    delivery. Unique per (recipient, game, event, kind): whatever runs twice, it is one email.
    """

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting to be sent")
        # Released back to pending if its delivery dies, so it is never in doubt.
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
    # Random: a restored database must never reuse a Message-ID (mail clients drop repeats).
    token = models.CharField(max_length=32, unique=True, default=new_message_token, editable=False)
    subject = models.CharField(max_length=250, blank=True)
    body_text = models.TextField(blank=True)
    body_html = models.TextField(blank=True)
    headers = models.JSONField(default=dict, blank=True)

    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(default=clock_source.now)
    next_attempt_at = models.DateTimeField(default=clock_source.now)
    attempts = models.PositiveSmallIntegerField(default=0)
    claimed_at = models.DateTimeField(null=True, blank=True)
    # Which delivery claimed the row: it sends only while the row is still claimed under it.
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
            # The sweep reads only waiting, run-out and stuck rows.
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
    created_at = models.DateTimeField(default=clock_source.now)

    def __str__(self) -> str:
        return f"{self.address} ({self.reason})"

    @classmethod
    def for_address(cls, address: str) -> "Suppression | None":
        """Why mail to ``address`` is stopped, or None when it is not."""
        return cls.objects.filter(address=address.strip().lower()).first()

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
    """What the reader of an address chose on the unsubscribe page (an account keeps its
    digest choice on itself)."""

    address = models.EmailField(unique=True)
    digest = models.BooleanField(
        default=False, help_text=_("A daily digest of waiting games instead of each turn's email.")
    )
    stopped_kinds = models.JSONField(
        default=list, blank=True, help_text=_("Kinds of email not to send (outbox kinds).")
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [
            # The minute's digest scan reads the few digest readers, not every address
            # that stopped a kind of email.
            models.Index(
                fields=["id"],
                condition=Q(digest=True),
                name="notifications_pref_digest",
            ),
        ]

    def __str__(self) -> str:
        return self.address


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
    received_at = models.DateTimeField(default=clock_source.now)
    outcome = models.CharField(max_length=32)
    detail = models.TextField(blank=True)

    class Meta:
        ordering = ["-received_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.message_id} from {self.sender}: {self.outcome}"


class Channel(models.Model):
    """Somewhere besides email that a player's notices, or a table's, go (an Apprise URL).
    A table's channel says only public things. The URL holds secrets: shown only masked.
    """

    url = models.TextField(help_text=_("An Apprise URL; shown only masked."))
    user = models.ForeignKey(
        "accounts.User", null=True, blank=True, on_delete=models.CASCADE, related_name="channels"
    )
    seat = models.ForeignKey(
        "games.Seat", null=True, blank=True, on_delete=models.CASCADE, related_name="channels"
    )
    game = models.ForeignKey(
        "games.Game", null=True, blank=True, on_delete=models.CASCADE, related_name="channels"
    )
    # Random: the confirmation link names the channel by it (a seat's channel waits for it).
    token = models.CharField(max_length=32, unique=True, default=new_message_token, editable=False)
    confirmed_at = models.DateTimeField(null=True, blank=True)
    active = models.BooleanField(default=True)
    failures_in_a_row = models.PositiveSmallIntegerField(default=0)
    last_test_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=clock_source.now)

    def __str__(self) -> str:
        return f"channel {self.pk}"


class ChannelNotice(models.Model):
    """One notice to one channel: the outbox of channels, as Message is email's. Unique
    per (channel, game, event, kind), so retries and duplicate tasks never send twice; the
    text is built when it is delivered (notifications.channel_delivery)."""

    class Status(models.TextChoices):
        PENDING = "pending", pgettext_lazy("notice status", "Waiting to be sent")
        SENDING = "sending", pgettext_lazy("notice status", "Being sent")
        SENT = "sent", pgettext_lazy("notice status", "Sent")
        FAILED = "failed", pgettext_lazy("notice status", "Failed")
        DROPPED = "dropped", pgettext_lazy("notice status", "No longer needed")

    channel = models.ForeignKey(Channel, on_delete=models.CASCADE, related_name="notices")
    game = models.ForeignKey("games.Game", null=True, blank=True, on_delete=models.CASCADE)
    seat = models.ForeignKey("games.Seat", null=True, blank=True, on_delete=models.CASCADE)
    kind = models.CharField(max_length=32)
    event = models.CharField(max_length=64)
    facts = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(default=clock_source.now)
    created_at = models.DateTimeField(default=clock_source.now)
    sent_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["channel", "game", "event", "kind"], name="notifications_notice_once"
            )
        ]
        indexes = [
            models.Index(
                fields=["next_attempt_at"],
                condition=Q(status="pending"),
                name="notifications_notice_pending",
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind} to channel {self.channel_id} ({self.status})"
