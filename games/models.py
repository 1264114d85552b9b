"""The event store: a game's history is its events; the Game row is a projection of them."""

import secrets
from datetime import datetime, timedelta

from django.conf import settings
from django.db import models
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from games import rules
from helpers import clock_source

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
    created_at = models.DateTimeField(default=clock_source.now)
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
    # Keys every copy derived from the log, so no other log's copy is ever taken for it.
    log_digest = models.CharField(max_length=64, blank=True, editable=False)
    # Not a projection: the turn's next reminder, moved on by the reminder task.
    remind_at = models.DateTimeField(null=True, blank=True, editable=False)
    # The root every email of the game refers to, so mail clients thread them; random, so
    # no other game (another server, a restore) ever shares it.
    thread_token = models.CharField(
        max_length=32, unique=True, default=new_thread_token, editable=False
    )
    # An email about a game nobody has talked in then needs no query for talk.
    last_talk_at = models.DateTimeField(null=True, blank=True, editable=False)
    # A move asks for the table's channel only when this is set.
    has_channel = models.BooleanField(default=False, editable=False)
    # "Play again": one to one, so a second press finds the successor rather than making another.
    follows = models.OneToOneField(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="successor",
        editable=False,
    )

    class Meta:
        indexes = [
            # The minute scans read only games with a deadline or reminder to come.
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
        """When the player to move is reminded this turn, earliest first; only reminders that
        fit in a turn, as one longer than the turn would arrive as it begins."""
        if self.deadline is None:
            return []
        allowed = self.time_per_move or timedelta(0)
        hours = {h for h in self.reminder_hours if timedelta(hours=h) < allowed}
        return sorted(self.deadline - timedelta(hours=h) for h in hours)

    def engine_events(self) -> list[dict]:
        return [event.as_engine_event() for event in self.events.order_by("seq")]

    def moved_since(self, version: int) -> bool:
        """Whether the board changed after ``version`` (a take-back does; clock, seat and
        consent events do not)."""
        return self.events.filter(
            seq__gt=version,
            type__in=[*rules.MOVE_EVENTS, rules.ROUND_STARTED, rules.TURN_TAKEN_BACK],
        ).exists()

    def seat_names(self) -> list[str]:
        """The players' names in play order; uses prefetched seats when there are any."""
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
    # A fresh link mailed on request replaces the old ones only at its first POST: anyone
    # who knows the address may ask, and that alone must not kill the player's links.
    pending_link_nonce = models.CharField(max_length=32, blank=True, default="")
    joined_at = models.DateTimeField(
        null=True, blank=True, help_text=_("When the player took the seat; empty while invited.")
    )
    # A declined seat waits as an unanswered invitation does, for the creator to act.
    declined_at = models.DateTimeField(
        null=True, blank=True, help_text=_("When the invited player declined; empty otherwise.")
    )
    # Set only by a POST from a visible board page (never a mail scanner's GET), so a
    # your-turn email for a position already seen is not sent.
    seen_version = models.PositiveIntegerField(
        default=0, help_text=_("The game version the player last saw on their board page.")
    )
    # Deadlines are shown in it to a player without an account.
    browser_time_zone = models.CharField(max_length=64, blank=True)
    # For a player with only links; an account's choice comes first, empty means the game's.
    language = models.CharField(max_length=8, blank=True, choices=settings.LANGUAGES)
    notices_muted = models.BooleanField(
        default=False, help_text=_("No news of this game but the player's own turn.")
    )
    # A move asks for the seat's channels only when this is set.
    has_channels = models.BooleanField(default=False, editable=False)
    # A move asks about plans only where there is one (holding, or stopped and not yet told).
    has_plan = models.BooleanField(default=False, editable=False)

    class Meta:
        ordering = ["game", "position"]
        constraints = [
            models.UniqueConstraint(fields=["game", "position"], name="games_seat_unique_position"),
        ]
        indexes = [
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

    ``data`` holds the engine's event without "type" and "seq", which are columns.
    """

    # No index of its own: the unique (game, seq) serves it, one write fewer per event.
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="events", db_index=False)
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=40)
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=clock_source.now)

    objects = EventQuerySet.as_manager()

    class Meta:
        ordering = ["game", "seq"]
        constraints = [
            # Two writers appending the same seq: one of them fails here, whatever
            # happened to the row lock.
            models.UniqueConstraint(fields=["game", "seq"], name="games_event_unique_seq"),
        ]
        indexes = [
            # Clock events, read by the deadline and the minute scan: a few rows, not the log.
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
    """A short message from one player to the others at the table.

    Never on a finished game's public pages or record. Hidden by staff, it stays, as the
    record of what was reported.
    """

    class Via(models.TextChoices):
        BOARD = "board", _("The board page")
        EMAIL = "email", _("A reply to an email")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="talk")
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="talk")
    text = models.TextField()
    via = models.CharField(max_length=8, choices=Via.choices, default=Via.BOARD)
    created_at = models.DateTimeField(default=clock_source.now)
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
    created_at = models.DateTimeField(default=clock_source.now)
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
    created_at = models.DateTimeField(default=clock_source.now)

    def __str__(self) -> str:
        return self.address


class Plan(models.Model):
    """A seat's build plan: its standing order for its next turns.

    Private like a hand, so never in the log; keyed by the log's version and digest, so a
    plan set on a log no longer the game's (a restored backup) never plays.
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
    set_at = models.DateTimeField(default=clock_source.now)
    # Empty while the plan holds; once it stops, why and at which version.
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
