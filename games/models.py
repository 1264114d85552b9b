"""The event store: a game's history is its events; the Game row is a projection of them."""

import secrets
from datetime import datetime, timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from games import rules

# Events of a seat's clock (vacations), recorded by games.services. They start no turn.


def new_link_nonce() -> str:
    return secrets.token_urlsafe(16)


def new_thread_token() -> str:
    return secrets.token_hex(16)


def default_reminder_hours() -> list[int]:
    return [24, 2]


class Game(models.Model):
    """A game, and a projection of its events kept for queries.

    The columns from ``status`` down are derived from the events (see games.derived.projection)
    and are written only together with an append, in the same transaction.
    """

    class Status(models.TextChoices):
        SETUP = "setup", pgettext_lazy("game status", "Setting up")
        ACTIVE = "active", pgettext_lazy("game status", "Active")
        FINISHED = "finished", pgettext_lazy("game status", "Finished")

    class OnTimeout(models.TextChoices):
        BOT = "bot", _("A bot plays the turn")
        WAIT = "wait", _("The game waits")

    # The board and options are also recorded in the first event, which is what the
    # rules engine reads; these copies are for queries and the admin.
    board = models.CharField(max_length=32)
    options = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="games_created",
    )
    title = models.CharField(max_length=100, blank=True, help_text=_("Shown in emails and lists."))
    time_per_move = models.DurationField(
        null=True,
        blank=True,
        help_text=_("How long a player has for each move; empty for no limit."),
    )
    reminder_hours = models.JSONField(
        default=default_reminder_hours,
        blank=True,
        help_text=_("Hours before a deadline at which the player to move is reminded."),
    )
    on_timeout = models.CharField(max_length=8, choices=OnTimeout.choices, default=OnTimeout.BOT)
    time_zone = models.CharField(
        max_length=64,
        default="UTC",
        help_text=_("Deadlines are shown in it to players who have not chosen their own."),
    )
    language = models.CharField(
        max_length=8,
        choices=settings.LANGUAGES,
        default=settings.LANGUAGE_CODE,
        help_text=_("Invitations are in it, and everything for players who have not chosen."),
    )
    weekend_pause = models.BooleanField(
        default=False,
        help_text=_("The clock stops from Saturday 00:00 to Monday 00:00 in the game's zone."),
    )
    bot_takeover_after = models.PositiveSmallIntegerField(
        default=3, help_text=_("Timeouts in a row after which a bot keeps the seat.")
    )

    status = models.CharField(max_length=16, choices=Status.choices, default=Status.SETUP)
    round = models.PositiveSmallIntegerField(default=0)
    seat_to_move = models.PositiveSmallIntegerField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True)
    version = models.PositiveIntegerField(default=0, help_text=_("The seq of the last event."))
    scores = models.JSONField(default=list, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # A digest of the whole event log (games.derived.projection.log_digest): the key of every copy
    # derived from the log (games.derived.snapshots), which no other log can have.
    log_digest = models.CharField(max_length=64, blank=True, editable=False)
    # Not a projection: when the minute scan next looks at the turn for a reminder. The
    # write path sets it to the turn's first reminder (reminder_moments()); the reminder
    # task moves it on to the next one, or empties it.
    remind_at = models.DateTimeField(null=True, blank=True, editable=False)
    # Random, so that no other game (on this server, another, or after a restore into a
    # new database) ever shares it: the root every email of the game refers to, so that
    # mail clients thread them together.
    thread_token = models.CharField(
        max_length=32, unique=True, default=new_thread_token, editable=False
    )
    # When the game's latest table-talk message was written (games.services.talk sets it with the
    # message): an email about a game nobody has talked in needs no look for talk.
    last_talk_at = models.DateTimeField(null=True, blank=True, editable=False)
    # Whether the table may have a channel besides email (notifications.channel_settings
    # sets it): a move asks for the table's channel only then.
    has_channel = models.BooleanField(default=False, editable=False)

    class Meta:
        indexes = [
            # The every-minute scans read only games with a deadline, or a reminder, to
            # come (an index scan up to now, however many games there are).
            models.Index(
                fields=["deadline"],
                condition=models.Q(deadline__isnull=False),
                name="games_game_deadline_due",
            ),
            models.Index(
                fields=["remind_at"],
                condition=models.Q(remind_at__isnull=False),
                name="games_game_remind_due",
            ),
        ]

    def __str__(self) -> str:
        return self.display_name

    @property
    def board_title(self) -> str:
        """The board's name as the games spell it: "TransAmerica", "TransEuropa"."""
        return rules.get_board(self.board).title

    @property
    def display_name(self) -> str:
        """The game's title, or a name made from its number and board."""
        if self.title:
            return self.title
        return gettext("Game %(number)s (%(board)s)") % {
            "number": self.pk,
            "board": rules.get_board(self.board).title,
        }

    def reminder_moments(self) -> list[datetime]:
        """When the player to move is reminded this turn, earliest first: ``reminder_hours``
        before the deadline, those that fit in a turn (24 hours' notice of a 12-hour move
        would arrive as the turn begins)."""
        if self.deadline is None:
            return []
        allowed = self.time_per_move or timedelta(0)
        hours = {h for h in self.reminder_hours if timedelta(hours=h) < allowed}
        return sorted(self.deadline - timedelta(hours=h) for h in hours)

    def engine_events(self) -> list[dict]:
        """Return the whole event log in the form the rules engine replays."""
        return [event.as_engine_event() for event in self.events.order_by("seq")]

    def moved_since(self, version: int) -> bool:
        """Whether the board changed after ``version``: a move or a new round was recorded
        (clock, seat and consent events change no position; a take-back does)."""
        return self.events.filter(
            seq__gt=version,
            type__in=[*rules.MOVE_EVENTS, rules.ROUND_STARTED, rules.TURN_TAKEN_BACK],
        ).exists()

    def seat_names(self) -> list[str]:
        """The players' names in play order (seat 0 first), as records and emails list them.

        Reads the seats prefetched with the game, if they were (``prefetch_related("seats")``).
        """
        return [seat.name for seat in sorted(self.seats.all(), key=lambda seat: seat.position)]


class Seat(models.Model):
    """A place at the table, in play order. It belongs to an email address; an account
    is optional."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField(help_text=_("Play order, from 0."))
    name = models.CharField(max_length=100)
    email = models.EmailField(blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="seats",
    )
    is_bot = models.BooleanField(default=False)
    bot_level = models.CharField(
        max_length=16, blank=True, help_text=_("For bot seats: which bot plays (games.bots).")
    )
    timeouts_in_a_row = models.PositiveSmallIntegerField(default=0)
    autopilot = models.BooleanField(
        default=False,
        help_text=_("A bot plays this seat after too many timeouts, until taken back."),
    )
    # Part of every signed link to this seat; replacing it revokes all old links.
    link_nonce = models.CharField(max_length=32, default=new_link_nonce)
    # The nonce of a fresh link mailed on request. It opens the seat beside the current
    # one and replaces it at the first POST through it: asking for a fresh link (which
    # anyone who knows the address can do) never kills the player's links by itself.
    pending_link_nonce = models.CharField(max_length=32, blank=True, default="")
    joined_at = models.DateTimeField(
        null=True, blank=True, help_text=_("When the player took the seat; empty while invited.")
    )
    # Said by the board page with a POST while it is visible (a GET, a mail scanner or a
    # tab in the background never counts): a your-turn email for a position the player
    # has already seen is not sent.
    seen_version = models.PositiveIntegerField(
        default=0, help_text=_("The game version the player last saw on their board page.")
    )
    # The zone the player's browser reported on their board page: deadlines are shown in
    # it to a player without an account (an account's own choice comes first).
    browser_time_zone = models.CharField(max_length=64, blank=True)
    # The language chosen on the board page by a player who has only links (an account's
    # own choice comes first; empty: the game's).
    language = models.CharField(max_length=8, blank=True, choices=settings.LANGUAGES)
    # The player muted this game: no notices of it on any channel but those of their own
    # turn (games.services.mutes; notifications.emails reads it).
    notices_muted = models.BooleanField(
        default=False, help_text=_("No news of this game but the player's own turn.")
    )
    # Whether the player may have channels besides email (notifications.channel_settings
    # sets it): a move reads it with the table and asks for channels only then.
    has_channels = models.BooleanField(default=False, editable=False)
    # Whether the seat has a build plan (a Plan row, holding or stopped and not yet told):
    # read with the table, so a move asks about plans only where there is one.
    has_plan = models.BooleanField(default=False, editable=False)

    class Meta:
        ordering = ["game", "position"]
        constraints = [
            models.UniqueConstraint(fields=["game", "position"], name="games_seat_unique_position"),
        ]
        indexes = [
            # A player's seats by address: the next game waiting for them, their digest.
            models.Index(fields=["email"], name="games_seat_email"),
        ]

    def __str__(self) -> str:
        return f"{self.name} (seat {self.position} of game {self.game_id})"


class AppendOnlyError(Exception):
    """Raised on an attempt to change or remove a recorded event."""


class EventQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise AppendOnlyError("Events are append-only: they cannot be updated")

    def delete(self):
        raise AppendOnlyError("Events are append-only: they cannot be deleted")

    def bulk_update(self, objs, fields, batch_size=None):
        # Refused here rather than in the update() it calls, which runs inside a
        # transaction that the refusal would leave broken.
        raise AppendOnlyError("Events are append-only: they cannot be updated")


class Event(models.Model):
    """One entry in a game's history. Written once, never changed or removed.

    ``data`` holds the engine's event without its "type" (a column of its own) and
    without "seq" (also a column).
    """

    # No index of its own: the unique (game, seq) below serves every lookup by game, and
    # one index fewer is one write fewer for each event a move appends.
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="events", db_index=False)
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=40)
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    objects = EventQuerySet.as_manager()

    class Meta:
        ordering = ["game", "seq"]
        constraints = [
            # Two writers appending the same seq: one of them fails here, whatever
            # happened to the row lock.
            models.UniqueConstraint(fields=["game", "seq"], name="games_event_unique_seq"),
        ]
        indexes = [
            # A seat's clock events (vacations), read by the deadline's projection and by
            # the minute scan's "is this clock paused?": a few rows, not the whole log.
            models.Index(
                fields=["game", "seq"],
                condition=models.Q(type__in=rules.CLOCK_EVENTS),
                name="games_event_clock",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.type} #{self.seq} of game {self.game_id}"

    def save(self, *args, **kwargs) -> None:
        if not self._state.adding:
            raise AppendOnlyError("Events are append-only: they cannot be updated")
        # Never let Django fall back to an UPDATE of a row with the same primary key.
        kwargs["force_insert"] = True
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AppendOnlyError("Events are append-only: they cannot be deleted")

    @classmethod
    def from_engine(cls, game: Game, seq: int, event: dict) -> "Event":
        """Return an unsaved Event for one of the engine's event dicts."""
        data = {key: value for key, value in event.items() if key not in ("type", "seq")}
        return cls(game=game, seq=seq, type=event["type"], data=data)

    def as_engine_event(self) -> dict:
        return {"type": self.type, "seq": self.seq, **self.data}


class TalkMessage(models.Model):
    """A short message from one player to the others at the table (table talk).

    It belongs to the game's players: never shown on the public pages of a finished game,
    never in its public record. Staff may hide one (it stays, for the record of what was
    reported).
    """

    class Via(models.TextChoices):
        BOARD = "board", _("The board page")
        EMAIL = "email", _("A reply to an email")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="talk")
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="talk")
    text = models.TextField()
    via = models.CharField(max_length=8, choices=Via.choices, default=Via.BOARD)
    created_at = models.DateTimeField(default=timezone.now)
    hidden_at = models.DateTimeField(
        null=True, blank=True, help_text=_("When staff hid it; players no longer see it.")
    )

    class Meta:
        ordering = ["game", "created_at", "pk"]
        indexes = [models.Index(fields=["game", "created_at"], name="games_talk_by_game")]

    def __str__(self) -> str:
        return f"{self.seat.name} in game {self.game_id}: {self.text[:40]}"


class TalkMute(models.Model):
    """``seat``'s player does not want to read ``muted``'s messages in this game."""

    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="mutes")
    muted = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="muted_by")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["seat", "muted"], name="games_talkmute_once")
        ]

    def __str__(self) -> str:
        return f"{self.seat.name} mutes {self.muted.name}"


class TalkReport(models.Model):
    """A player told staff that a message is abusive; staff decide in the admin."""

    message = models.ForeignKey(TalkMessage, on_delete=models.CASCADE, related_name="reports")
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="talk_reports")
    created_at = models.DateTimeField(default=timezone.now)
    handled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["message", "seat"], name="games_talkreport_once")
        ]

    def __str__(self) -> str:
        return f"Report of message {self.message_id} by {self.seat.name}"


class TalkBlock(models.Model):
    """An address staff stopped from table talk, in every game."""

    address = models.EmailField(unique=True)
    reason = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return self.address


class Plan(models.Model):
    """A seat's build plan: its standing order for its next turns (games.rules.plans).

    Private to its seat like its hand, and never in the log: it is kept with the version
    and digest of the log it was set at (as snapshots are keyed), so a plan set on a log
    that is no longer the game's (a database restored from an older backup) never plays.
    One per seat; a stopped plan keeps its reason until the next one replaces it.
    """

    class Form(models.TextChoices):
        ROUTE = rules.plans.ROUTE, _("follow a route")
        CITY = rules.plans.CITY, _("toward a city")
        ALL = rules.plans.ALL, _("all my cities")
        START = rules.plans.START, _("a start marker")

    seat = models.OneToOneField(Seat, on_delete=models.CASCADE, related_name="plan")
    form = models.CharField(max_length=8, choices=Form.choices)
    round = models.PositiveIntegerField()
    route = models.JSONField(default=list, blank=True)  # line ids, in building order
    coloured = models.JSONField(default=list, blank=True)  # route lines marked coloured
    city = models.CharField(max_length=64, blank=True)
    starts = models.JSONField(default=list, blank=True)  # point ids, in preference order
    slack = models.IntegerField(null=True, blank=True)
    version = models.PositiveIntegerField()
    log_digest = models.CharField(max_length=64)
    set_at = models.DateTimeField(default=timezone.now)
    # Empty while the plan holds; once it stops, why (games.services.plans' reasons) and
    # at which version of the log.
    stopped = models.CharField(max_length=16, blank=True)
    stopped_version = models.PositiveIntegerField(null=True, blank=True)

    def __str__(self) -> str:
        return f"Plan of seat {self.seat_id}"

    def engine_plan(self) -> "rules.Plan":
        """The plan as the engine reads it."""
        return rules.Plan(
            form=self.form,
            round=self.round,
            route=tuple(self.route),
            coloured=frozenset(self.coloured),
            city=self.city or None,
            starts=tuple(self.starts),
            slack=self.slack,
        )


class PlanTurn(models.Model):
    """A turn a plan played (its move event's seq): written with the move, read by the
    finished game's record ("played_by": "plan") and by its owner's next email."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="plan_turns")
    seq = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="games_planturn_once")]

    def __str__(self) -> str:
        return f"Plan turn {self.seq} of game {self.game_id}"
