"""Forms: playing through seat links, setting up games, and browsing their history."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from functools import cache, cached_property

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.forms.utils import flatatt
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, ngettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from accounts.forms import TimeZoneField
from games import rules
from games.models import Game
from games.services import GameSettings, SeatSpec, talk
from games.words import bot_levels
from games.words.places import line_label, point_name
from helpers.text import refuse_control_characters


class LongSelect(forms.Select):
    """Django's Select's markup for hundreds of options, without a template per option."""

    def render(self, name, value, attrs=None, renderer=None) -> SafeString:
        chosen = set(self.format_value(value))
        options = format_html_join(
            "\n",
            '<option value="{}"{}>{}</option>',
            (
                (key, mark_safe(" selected") if str(key) in chosen else "", label)
                for key, label in self.choices
            ),
        )
        attributes = flatatt(self.build_attrs(self.attrs, attrs))
        return format_html('<select name="{}"{}>\n{}\n</select>', name, attributes, options)


class OptionField(forms.TypedChoiceField):
    """A choice among a move's options by number, checked by ``allows`` alone so that a
    POST never builds the hundreds of labels."""

    widget = LongSelect

    def __init__(self, **kwargs) -> None:
        super().__init__(coerce=int, empty_value=None, required=False, **kwargs)
        self.allows: Callable[[int], bool] = lambda _option: False

    def valid_value(self, value) -> bool:
        try:
            return self.allows(int(value))
        except (TypeError, ValueError):
            return False


class MoveForm(forms.Form):
    """One turn for one seat: a start marker, one or two lines, or a pass.

    Without JavaScript it offers only what the rules allow; the board's script fills the
    same fields. ``cleaned_data["move"]`` is the engine's move.
    """

    version = forms.IntegerField(min_value=0, widget=forms.HiddenInput)
    point = OptionField(label=_("Start marker on"))
    line1 = OptionField(label=_("First line"))
    line2 = OptionField(label=_("Second line (optional, single lines only)"))
    colour1 = forms.BooleanField(required=False, label=_("Build the first line in my colour"))
    colour2 = forms.BooleanField(required=False, label=_("Build the second line in my colour"))
    pass_turn = forms.BooleanField(required=False, widget=forms.HiddenInput)

    def __init__(
        self, *args, state: rules.GameState, seat: int, first_line: int | None = None, **kwargs
    ) -> None:
        super().__init__(*args, **kwargs)
        self.state = state
        self.seat = seat
        board = state.board
        self.placing = state.phase == rules.PLACING
        self.first_line_ids = rules.legal_line_ids(state, seat) if not self.placing else []
        # The second step without JavaScript.
        self.first_line = first_line if first_line in self.first_line_ids else None
        if self.first_line is not None:
            self.first_line_ids = [self.first_line]
        self.chosen_cost = board.lines[self.first_line][2] if self.first_line is not None else 0
        self.point_ids = (
            {board.point_index[p] for p in rules.legal_start_points(state)} if self.placing else ()
        )
        self.fields["point"].allows = lambda point: point in self.point_ids
        first_line_ids = set(self.first_line_ids)
        self.fields["line1"].allows = lambda line: line in first_line_ids
        self.fields["line2"].allows = self.may_be_second
        # Labels, and second lines, are found only when shown (once), or when sent.
        self.fields["point"].choices = cache(
            lambda: (
                [("", gettext("Choose a crossing point"))]
                + [(i, point_name(board, i)) for i in self.start_point_ids]
            )
        )
        self.fields["line1"].choices = cache(
            lambda: (
                [("", gettext("Choose a line"))]
                + [(i, line_label(board, i)) for i in self.first_line_ids]
            )
        )
        self.fields["line2"].choices = cache(
            lambda: (
                [("", gettext("No second line"))]
                + [(i, line_label(board, i)) for i in self.second_line_ids]
            )
        )
        self.may_colour = bool(state.options.exclusive_tracks) and state.exclusive_left[seat] > 0
        self._seconds: dict[bool, dict[int, list[int]]] = {}
        if not self.may_colour:
            del self.fields["colour1"]
            del self.fields["colour2"]

    @cached_property
    def start_point_ids(self) -> list[int]:
        """The crossing points a start marker may go on, cities first, by name."""
        board = self.state.board
        return sorted(self.point_ids, key=lambda i: (i not in board.city_at, point_name(board, i)))

    @cached_property
    def second_line_ids(self) -> list[int]:
        """The lines a second line may be, after the chosen first line or any first line."""
        if self.first_line is not None:
            return rules.legal_second_line_ids(self.state, self.seat, self.first_line)
        found: set[int] = set()
        for coloured in (False, True) if self.may_colour else (False,):
            for seconds in self.seconds_after(coloured).values():
                found.update(seconds)
        return sorted(found)

    def may_be_second(self, line: int) -> bool:
        """Whether ``line`` may be a second line at all: a single line of the board, not
        built. Whether it may follow the first line is the engine's to judge, which says
        why when it may not (working it out here too doubled the rules' work of a move)."""
        board = self.state.board
        return (
            0 <= line < len(board.lines)
            and board.lines[line][2] == 1
            and line not in self.state.built
        )

    def seconds_after(self, coloured: bool = False) -> dict[int, list[int]]:
        """For each first line, the second lines the rules allow after it: what the board's
        script offers once a first line is picked."""
        if coloured not in self._seconds:
            self._seconds[coloured] = {
                line: rules.legal_second_line_ids(self.state, self.seat, line, coloured)
                for line in self.first_line_ids
            }
        return self._seconds[coloured]

    @property
    def may_pass(self) -> bool:
        return not self.placing and not self.first_line_ids

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        board = self.state.board
        if self.placing:
            if data.get("point") is None:
                raise ValidationError(
                    gettext("Pick a crossing point for your start marker."), code="no_point"
                )
            data["move"] = rules.PlaceStart(board.points[data["point"]])
        elif data.get("pass_turn"):
            data["move"] = rules.Pass()
        else:
            picks = [(data.get(f"line{n}"), data.get(f"colour{n}")) for n in (1, 2)]
            picks = [(line_id, coloured) for line_id, coloured in picks if line_id is not None]
            if not picks:
                raise ValidationError(gettext("Pick one or two lines to build."), code="no_line")
            ids = [line_id for line_id, _coloured in picks]
            coloured = {n for n, (_line_id, colour) in enumerate(picks) if colour}
            data["move"] = rules.Build(
                tuple(board.line_points(i) for i in ids), exclusive=frozenset(coloured)
            )
        return data


class PlayerFilterForm(forms.Form):
    """The list of finished games, filtered by a player's name."""

    player = forms.CharField(label=_("Player"), max_length=100, required=False)


class ReplayStepForm(forms.Form):
    """Which event of a game's log the replay shows (its ``seq``; the latest when empty)."""

    move = forms.IntegerField(min_value=1, required=False)


class EmailForm(forms.Form):
    """Ask for a fresh link: the address the seat was invited with."""

    email = forms.EmailField(label=_("Your email address"))


class ReplacePlayerForm(forms.Form):
    name = forms.CharField(
        max_length=100,
        label=pgettext_lazy("a player's name", "Name"),
        validators=[refuse_control_characters],
    )
    email = forms.EmailField(label=_("Email address"))


TIME_PER_MOVE_CHOICES = [
    ("", _("No limit")),
    ("12", _("12 hours")),
    ("24", _("1 day")),
    ("48", _("2 days")),
    ("72", _("3 days")),
    ("168", _("1 week")),
]

# The reminders a new game may have: how long before the deadline, in hours.
REMINDER_CHOICES = [
    ("1", _("1 hour")),
    ("2", _("2 hours")),
    ("6", _("6 hours")),
    ("12", _("12 hours")),
    ("24", _("1 day")),
    ("48", _("2 days")),
]


class NewGameForm(forms.Form):
    """The settings of a new game; the players come from PlayerFormSet."""

    title = forms.CharField(
        max_length=100,
        required=False,
        label=_("Title"),
        help_text=_("Shown in emails and lists."),
        validators=[refuse_control_characters],
    )
    board = forms.ChoiceField(
        label=_("Board"),
        choices=[(name, rules.get_board(name).title) for name in rules.BOARD_NAMES],
    )
    exclusive_tracks = forms.BooleanField(
        required=False,
        label=_("Coloured track"),
        help_text=_("Each player may build up to 3 lines per round that only they can use."),
    )
    cities_must_join_start = forms.BooleanField(
        required=False,
        label=_("Stricter connection rule"),
        help_text=_("Your five cities count as joined only through your own start marker."),
    )
    take_backs = forms.BooleanField(
        required=False,
        label=_("Take-backs"),
        help_text=_(
            "A player may take back their last turn until the next player acts (a bot then "
            "waits two minutes before it moves)."
        ),
    )
    time_per_move = forms.TypedChoiceField(
        label=_("Time per move"),
        choices=TIME_PER_MOVE_CHOICES,
        coerce=lambda v: timedelta(hours=int(v)),
        empty_value=None,
        required=False,
        initial="48",
    )
    reminder_hours = forms.TypedMultipleChoiceField(
        choices=REMINDER_CHOICES,
        coerce=int,
        initial=["24", "2"],
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label=_("Reminders"),
        help_text=_("How long before the deadline the player to move is reminded."),
    )
    on_timeout = forms.ChoiceField(
        label=_("On timeout"), choices=Game.OnTimeout.choices, initial=Game.OnTimeout.BOT
    )
    time_zone = TimeZoneField(
        initial="UTC",
        required=False,
        label=_("Time zone"),
        help_text=_("Deadlines are shown in it to players who have not chosen their own."),
    )
    weekend_pause = forms.BooleanField(
        required=False,
        label=_("Weekend pause"),
        help_text=_("The clock stops from Saturday 00:00 to Monday 00:00 in the game's zone."),
    )
    bot_takeover_after = forms.IntegerField(
        min_value=1,
        max_value=20,
        initial=3,
        label=_("Bot takeover after"),
        help_text=_("Timeouts in a row after which a bot keeps the seat until its player returns."),
    )
    creator_plays = forms.BooleanField(
        required=False, initial=True, label=_("I play too (seat 1, first to move)")
    )
    creator_name = forms.CharField(
        max_length=100,
        required=False,
        label=_("Your name"),
        help_text=_("As the other players see it, when you play."),
        validators=[refuse_control_characters],
    )
    start_when = forms.ChoiceField(
        choices=[
            ("accepted", _("When every invited player has joined")),
            ("now", _("At once")),
        ],
        initial="accepted",
        widget=forms.RadioSelect,
        label=_("Start the game"),
    )
    language = forms.ChoiceField(
        label=_("Language of the game"),
        choices=settings.LANGUAGES,
        required=False,
        help_text=_(
            "Invitations are written in it, and everything for players who have not chosen "
            "their own."
        ),
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            # The page's script may put the browser's zone in place of the default.
            self.fields["time_zone"].widget.attrs["data-browser-zone"] = ""

    def clean_reminder_hours(self) -> list[int]:
        """The hours before the deadline, latest reminder last: [24, 2]."""
        return sorted(set(self.cleaned_data["reminder_hours"]), reverse=True)

    def settings(self) -> GameSettings:
        """The game's settings, from a valid form."""
        data = self.cleaned_data
        return GameSettings(
            board=data["board"],
            options=rules.Options(
                exclusive_tracks=3 if data["exclusive_tracks"] else 0,
                cities_must_join_start=data["cities_must_join_start"],
                take_backs=data["take_backs"],
            ),
            title=data["title"],
            time_per_move=data["time_per_move"],
            reminder_hours=tuple(data["reminder_hours"]),
            on_timeout=data["on_timeout"],
            bot_takeover_after=data["bot_takeover_after"],
            start_now=data["start_when"] == "now",
            time_zone=data["time_zone"] or "UTC",
            language=data.get("language") or "",
            weekend_pause=bool(data.get("weekend_pause")),
        )


class PlayerForm(forms.Form):
    """One other seat: a person by email, or a bot."""

    name = forms.CharField(
        max_length=100,
        required=False,
        label=pgettext_lazy("a player's name", "Name"),
        validators=[refuse_control_characters],
    )
    email = forms.EmailField(required=False, label=_("Email"))
    bot = forms.ChoiceField(required=False, label=_("or a bot"))

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["bot"].choices = [("", gettext("No, a person"))] + bot_levels.choices()

    def clean(self):
        data = super().clean()
        if self.errors or not self.has_changed():
            return data
        if data.get("bot"):
            if not data.get("name"):
                data["name"] = bot_levels.bot_name(data["bot"])
            data["email"] = ""
        elif not data.get("email"):
            raise ValidationError(
                gettext("Give the player's email address, or choose a bot."), code="no_player"
            )
        elif not data.get("name"):
            data["name"] = data["email"].split("@")[0]
        return data


class BasePlayerFormSet(forms.BaseFormSet):
    def clean(self) -> None:
        if any(self.errors):
            return
        emails = [f.cleaned_data["email"].lower() for f in self.filled() if f.cleaned_data["email"]]
        if len(emails) != len(set(emails)):
            raise ValidationError(
                gettext("Each person plays one seat: an email address is given twice."),
                code="duplicate_email",
            )

    def filled(self) -> list[PlayerForm]:
        return [f for f in self.forms if f.has_changed() and f.cleaned_data]

    def seat_specs(self, creator=None, creator_name: str = "") -> list[SeatSpec]:
        """Every seat in play order, the ``creator`` first when they play."""
        specs = []
        if creator is not None:
            name = creator_name.strip() or creator.get_short_name() or creator.email
            specs.append(SeatSpec(name, creator.email, creator))
        for form in self.filled():
            data = form.cleaned_data
            bot = data["bot"]
            specs.append(
                SeatSpec(
                    data["name"], data["email"], is_bot=bool(bot), bot_level=bot, joined=bool(bot)
                )
            )
        return names_apart(specs)


def names_apart(specs: list[SeatSpec]) -> list[SeatSpec]:
    """The seats with every name told apart: "Won by Strong bot" must say which."""
    counts: dict[str, int] = {}
    for spec in specs:
        counts[spec.name] = counts.get(spec.name, 0) + 1
    seen: dict[str, int] = {}
    named = []
    for spec in specs:
        if counts[spec.name] > 1:
            seen[spec.name] = seen.get(spec.name, 0) + 1
            spec = replace(spec, name=f"{spec.name} {seen[spec.name]}")
        named.append(spec)
    return named


# absolute_max: a POST claiming 99,999 forms is refused after building six, not Django's
# default 1,006 (each built and drawn again for the error page).
PlayerFormSet = forms.formset_factory(
    PlayerForm, formset=BasePlayerFormSet, extra=5, max_num=6, absolute_max=6, validate_max=True
)


class TalkForm(forms.Form):
    """A table-talk message (games.services.talk checks the rest: length, rate, blocks)."""

    text = forms.CharField(
        label=_("Message to the table"),
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=talk.MAX_LENGTH,
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # Worded when the form is made: the number goes into the reader's language.
        self.fields["text"].help_text = ngettext(
            "Everyone at this table reads it; at most %(max)s character.",
            "Everyone at this table reads it; at most %(max)s characters.",
            talk.MAX_LENGTH,
        ) % {"max": talk.MAX_LENGTH}
