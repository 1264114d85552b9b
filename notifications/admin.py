from django.contrib import admin, messages
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from helpers import clock_source
from notifications import channels, outbox, tasks
from notifications.models import Channel, ChannelNotice, InboundMail, Message, Suppression


@admin.register(Message)
class MessageAdmin(admin.ModelAdmin):
    list_display = ["created_at", "kind", "to", "game", "status", "attempts", "sent_at"]
    list_filter = ["status", "kind"]
    search_fields = ["to", "subject", "provider_id"]
    date_hierarchy = "created_at"
    raw_id_fields = ["game", "seat"]
    readonly_fields = [f.name for f in Message._meta.fields]
    actions = ["send_again"]

    def has_add_permission(self, request) -> bool:
        return False

    @admin.action(description=_("Send again (an email that was being sent may arrive twice)"))
    def send_again(self, request, queryset):
        # Rows stuck in "sending" may have reached the server before their worker died;
        # only an operator who has looked at the provider's log can tell.
        was_sending = queryset.filter(status=Message.Status.SENDING).count()
        ids = outbox.requeue(queryset.values_list("pk", flat=True))
        for pk in ids:
            tasks.deliver_after_commit(pk, clock_source.now())
        self.message_user(
            request,
            ngettext("%(count)s email queued again.", "%(count)s emails queued again.", len(ids))
            % {"count": len(ids)},
            messages.SUCCESS,
        )
        if was_sending:
            self.message_user(
                request,
                gettext(
                    '%(count)s of them had been left "being sent": the server may already '
                    "have delivered them, so their recipients may get them twice."
                )
                % {"count": was_sending},
                messages.WARNING,
            )


@admin.register(Suppression)
class SuppressionAdmin(admin.ModelAdmin):
    list_display = ["address", "reason", "created_at"]
    list_filter = ["reason"]
    search_fields = ["address"]


@admin.register(InboundMail)
class InboundMailAdmin(admin.ModelAdmin):
    """Every reply received, and what became of it (played, talk, ignored, refused)."""

    list_display = ("received_at", "sender", "seat", "outcome")
    list_filter = ("outcome",)
    search_fields = ("sender", "message_id")
    readonly_fields = (
        "message_id",
        "sender",
        "recipient",
        "seat",
        "received_at",
        "outcome",
        "detail",
    )

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(Channel)
class ChannelAdmin(admin.ModelAdmin):
    """Channels by id and service: the URL holds secrets and is never shown in full."""

    list_display = ["pk", "service", "user", "seat", "game", "confirmed_at", "active"]
    list_filter = ["active"]
    raw_id_fields = ["user", "seat", "game"]
    fields = ["service", "user", "seat", "game", "confirmed_at", "active", "failures_in_a_row"]
    readonly_fields = ["service", "user", "seat", "game", "confirmed_at", "failures_in_a_row"]

    def has_add_permission(self, request) -> bool:
        return False

    @admin.display(description=_("Service"))
    def service(self, channel: Channel) -> str:
        return channels.masked(channel.url)


@admin.register(ChannelNotice)
class ChannelNoticeAdmin(admin.ModelAdmin):
    list_display = ["created_at", "kind", "channel_id", "game", "status", "attempts", "sent_at"]
    list_filter = ["status", "kind"]
    readonly_fields = [f.name for f in ChannelNotice._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False
