from django.contrib import admin, messages
from django.db.models import Count
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from games.models import Event, Game, Seat, TalkBlock, TalkMessage, TalkReport
from helpers import clock_source


class ReadOnlyMixin:
    """Shows records without letting staff add, change or delete them."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class SeatInline(admin.TabularInline):
    model = Seat
    fields = ("position", "name", "email", "user", "is_bot", "joined_at")
    readonly_fields = ("position", "joined_at")
    raw_id_fields = ("user",)
    extra = 0
    # The seat count is part of the game_created event: seats come and go only with it.
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


class EventInline(ReadOnlyMixin, admin.TabularInline):
    model = Event
    fields = ("seq", "type", "data", "created_at")
    readonly_fields = fields
    extra = 0


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("id", "board", "status", "round", "seat_to_move", "deadline", "version")
    list_filter = ("status", "board")
    date_hierarchy = "created_at"
    inlines = [SeatInline, EventInline]
    fields = (
        ("board", "options"),
        ("created_at", "created_by", "time_per_move"),
        ("status", "round", "seat_to_move", "deadline"),
        ("version", "scores", "finished_at"),
    )
    # Everything on a game is either in its events or derived from them: change it
    # through games.services, never by hand.
    readonly_fields = (
        "board",
        "options",
        "created_at",
        "created_by",
        "time_per_move",
        "status",
        "round",
        "seat_to_move",
        "deadline",
        "version",
        "scores",
        "finished_at",
    )

    def has_add_permission(self, request) -> bool:
        # A game starts with its game_created event, which only games.services writes.
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Seat)
class SeatAdmin(admin.ModelAdmin):
    list_display = ("__str__", "game", "position", "email", "user", "is_bot", "joined_at")
    list_filter = ("is_bot",)
    search_fields = ("name", "email", "game__id")
    fields = ("game", "position", "name", "email", "user", "is_bot", "joined_at")
    readonly_fields = ("game", "position", "joined_at")
    raw_id_fields = ("user",)

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Event)
class EventAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("__str__", "game", "seq", "type", "created_at")
    list_filter = ("type",)
    list_select_related = ("game",)
    search_fields = ("game__id", "type")
    fields = ("game", "seq", "type", "data", "created_at")
    readonly_fields = fields


@admin.register(TalkMessage)
class TalkMessageAdmin(admin.ModelAdmin):
    """Table talk, for staff to act on reports: hide a message, stop its writer."""

    list_display = ("created_at", "game", "writer", "excerpt", "report_count", "hidden_at")
    list_filter = ("hidden_at", "via")
    search_fields = ("text", "seat__name", "seat__email")
    readonly_fields = ("game", "seat", "text", "via", "created_at")
    actions = ("hide", "hide_and_block_writers")

    def get_queryset(self, request):
        return (
            super().get_queryset(request).select_related("seat").annotate(reported=Count("reports"))
        )

    @admin.display(description=_("writer"))
    def writer(self, message: TalkMessage) -> str:
        return f"{message.seat.name} <{message.seat.email}>"

    @admin.display(description=_("message"))
    def excerpt(self, message: TalkMessage) -> str:
        return message.text[:80]

    @admin.display(description=_("reports"), ordering="reported")
    def report_count(self, message: TalkMessage) -> int:
        return message.reported

    @admin.action(description=_("Hide the selected messages from the players"))
    def hide(self, request, queryset) -> None:
        hidden = _hide(queryset)
        self.message_user(
            request,
            ngettext("%(count)s message hidden.", "%(count)s messages hidden.", hidden)
            % {"count": hidden},
            messages.SUCCESS,
        )

    @admin.action(description=_("Hide them, and stop their writers from talking in any game"))
    def hide_and_block_writers(self, request, queryset) -> None:
        addresses = {m.seat.email.lower() for m in queryset if m.seat.email}
        for address in addresses:
            TalkBlock.objects.get_or_create(address=address, defaults={"reason": "Reported talk"})
        hidden = _hide(queryset)
        self.message_user(
            request,
            gettext("Messages hidden: %(hidden)s; writers stopped from talking: %(writers)s.")
            % {"hidden": hidden, "writers": len(addresses)},
            messages.SUCCESS,
        )


def _hide(queryset) -> int:
    now = clock_source.now()
    TalkReport.objects.filter(message__in=queryset, handled_at__isnull=True).update(handled_at=now)
    return queryset.filter(hidden_at__isnull=True).update(hidden_at=now)


@admin.register(TalkReport)
class TalkReportAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("created_at", "message", "seat", "handled_at")
    list_filter = ("handled_at",)


@admin.register(TalkBlock)
class TalkBlockAdmin(admin.ModelAdmin):
    """Addresses stopped from table talk; delete a row to let its writer talk again."""

    list_display = ("address", "reason", "created_at")
    search_fields = ("address",)
