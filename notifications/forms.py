from django import forms
from django.core import signing

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
                "This link is damaged: copy the whole link from the email."
            ) from None


class ResumeMailForm(SignedAddressForm):
    salt = emails.RESUME_SALT
    next = forms.CharField(required=False, widget=forms.HiddenInput)
