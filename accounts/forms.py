"""Forms for signing in and for a player's preferences."""

from functools import cache
from pathlib import Path
from zoneinfo import TZPATH, available_timezones

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from accounts.models import User, normalize_email
from helpers.text import refuse_control_characters


class LoginForm(forms.Form):
    """The address to send a sign-in link to."""

    email = forms.EmailField(
        label=_("Email address"),
        max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "email", "autofocus": True}),
    )
    next = forms.CharField(required=False, widget=forms.HiddenInput, max_length=2000)

    def clean_email(self) -> str:
        return normalize_email(self.cleaned_data["email"])


# Offered first: where most players of TransAmerica and TransEuropa live.
COMMON_ZONES = (
    "UTC",
    "Europe/London",
    "Europe/Dublin",
    "Europe/Lisbon",
    "Europe/Paris",
    "Europe/Berlin",
    "Europe/Amsterdam",
    "Europe/Vienna",
    "Europe/Zurich",
    "Europe/Rome",
    "Europe/Madrid",
    "Europe/Stockholm",
    "Europe/Warsaw",
    "Europe/Helsinki",
    "Europe/Athens",
    "America/New_York",
    "America/Chicago",
    "America/Denver",
    "America/Phoenix",
    "America/Los_Angeles",
    "America/Anchorage",
    "Pacific/Honolulu",
    "America/Toronto",
    "America/Vancouver",
    "America/Sao_Paulo",
    "Asia/Tokyo",
    "Asia/Shanghai",
    "Asia/Kolkata",
    "Asia/Singapore",
    "Australia/Sydney",
    "Pacific/Auckland",
)


@cache
def canonical_zones() -> tuple[str, ...]:
    """The time zones a list offers: each place once, without old aliases ("US/Eastern")."""
    known = available_timezones()
    for folder in TZPATH:
        table = Path(folder) / "zone1970.tab"
        if table.is_file():
            lines = table.read_text().splitlines()
            names = {line.split("\t")[2] for line in lines if line and not line.startswith("#")}
            return tuple(sorted((names & known) | {"UTC"}))
    old = ("Etc/", "US/", "SystemV/", "Brazil/", "Canada/", "Chile/", "Mexico/")
    return tuple(sorted(n for n in known if "/" in n and not n.startswith(old)) + ["UTC"])


def timezone_choices(current: str = "") -> list:
    """The common time zones first, then every zone once, and ``current`` even if an alias."""
    every = list(canonical_zones())
    if current and current not in every and current in available_timezones():
        every = sorted([*every, current])
    return [
        (_("Common"), [(name, zone_label(name)) for name in COMMON_ZONES if name in every]),
        (_("All time zones"), [(name, zone_label(name)) for name in every]),
    ]


def zone_label(name: str) -> str:
    return name.replace("_", " ")


class TimeZoneField(forms.ChoiceField):
    """A time zone; any the system knows is accepted, so older choices stay valid."""

    def __init__(self, **kwargs) -> None:
        super().__init__(choices=timezone_choices, **kwargs)

    def valid_value(self, value) -> bool:
        return value in available_timezones()


class PreferencesForm(forms.ModelForm):
    """A player's name, turn emails, reminders, time zone and language."""

    timezone = TimeZoneField(label=_("Time zone"), help_text=_("Deadlines are shown in it."))

    language = forms.ChoiceField(
        label=_("Language"),
        # Each language by its own name: a reader finds theirs whatever the page is in.
        choices=[("", _("Each game's language")), *settings.LANGUAGES],
        required=False,
        help_text=_("Pages and emails are in it."),
    )

    class Meta:
        model = User
        fields = (
            "name",
            "email_mode",
            "reminders",
            "timezone",
            "quiet_start",
            "quiet_end",
            "language",
        )
        labels = {"name": _("Your name"), "email_mode": _("Turn emails")}
        help_texts = {"name": _("What other players see; your address is never shown.")}
        widgets = {
            "email_mode": forms.RadioSelect,
            "quiet_start": forms.TimeInput(format="%H:%M"),
            "quiet_end": forms.TimeInput(format="%H:%M"),
        }

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # The name goes into other players' emails, some of it into their subjects.
        self.fields["name"].validators.append(refuse_control_characters)
        self.fields["timezone"].choices = timezone_choices(self.instance.timezone)
        for name in ("quiet_start", "quiet_end"):
            self.fields[name].widget.input_type = "time"  # the browser's time picker


class LanguageForm(forms.Form):
    """The language menu at the foot of every page: one of the languages offered."""

    language = forms.ChoiceField(choices=settings.LANGUAGES)
