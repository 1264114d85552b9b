"""Forms for signing in and for a player's preferences."""

from zoneinfo import available_timezones

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


def timezone_choices() -> list[tuple[str, str]]:
    """Every IANA time zone this system knows, by name."""
    return [(name, name.replace("_", " ")) for name in sorted(available_timezones())]


class PreferencesForm(forms.ModelForm):
    """A player's name, turn emails, reminders, time zone and language."""

    timezone = forms.ChoiceField(
        label=_("Time zone"),
        choices=timezone_choices,
        help_text=_("Deadlines are shown in it."),
    )

    language = forms.ChoiceField(
        label=_("Language"),
        # Each language by its own name: a reader finds theirs whatever the page is in.
        choices=[("", _("Each game's language")), *settings.LANGUAGES],
        required=False,
        help_text=_("Pages and emails are in it."),
    )

    class Meta:
        model = User
        fields = ("name", "email_mode", "reminders", "timezone", "language")
        labels = {"name": _("Your name"), "email_mode": _("Turn emails")}
        help_texts = {"name": _("What other players see; your address is never shown.")}
        widgets = {"email_mode": forms.RadioSelect}

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # The name goes into other players' emails, some of it into their subjects.
        self.fields["name"].validators.append(refuse_control_characters)


class LanguageForm(forms.Form):
    """The language menu at the foot of every page: one of the languages offered."""

    language = forms.ChoiceField(choices=settings.LANGUAGES)
