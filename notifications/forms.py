from django import forms
from django.core import signing
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from notifications import emails


class SignedAddressForm(forms.Form):
    """A form whose only input is a signed token naming an email address."""

    salt = ""
    token = forms.CharField(widget=forms.HiddenInput)

    def clean_token(self) -> str:
        try:
            return emails.address_for_token(self.cleaned_data["token"], self.salt)
        except signing.BadSignature:
            raise forms.ValidationError(
                gettext("This link is damaged: copy the whole link from the email."),
                code="bad_signature",
            ) from None


class ResumeMailForm(SignedAddressForm):
    salt = emails.RESUME_SALT
    next = forms.CharField(required=False, widget=forms.HiddenInput)


class UnsubscribeForm(forms.Form):
    """Which of the choices offered for this kind of email the reader takes."""

    choice = forms.ChoiceField(widget=forms.RadioSelect, label=_("What would you like?"))

    def __init__(self, *args, offered: list[tuple[str, str]], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["choice"].choices = offered


class VacationForm(forms.Form):
    """How many days of one's vacation allowance to take, from now."""

    days = forms.IntegerField(
        label=_("Days away"),
        min_value=1,
        help_text=_("Your clocks stop in all your games until you are back."),
    )

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["days"].widget.attrs["max"] = user.vacation_days_left
        self.fields["days"].validators.append(_at_most_days_left(user))


def _at_most_days_left(user):
    def validate(days: int) -> None:
        if days > user.vacation_days_left:
            left = user.vacation_days_left
            raise forms.ValidationError(
                ngettext(
                    "You have %(left)s vacation day left.",
                    "You have %(left)s vacation days left.",
                    left,
                )
                % {"left": left}
                if left
                else gettext("You have no vacation days left."),
                code="too_many_days",
            )

    return validate
