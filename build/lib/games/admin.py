from django.contrib import admin

from games.models import Event, Game, Seat


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
