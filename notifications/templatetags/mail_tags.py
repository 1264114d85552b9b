from django import template
from django.urls import reverse

from games.links import make_token
from notifications import emails
from notifications.models import MailPreference, Suppression
from notifications.preferences import KIND_NAMES

register = template.Library()


@register.simple_tag
def mail_stopped(seat) -> dict | None:
    """Why mail to ``seat``'s address is stopped or lessened (a digest instead of turn
    emails, kinds stopped), with the token to turn it all back on."""
    if seat is None or seat.is_bot or not seat.email:
        return None
    address = seat.email.lower()
    suppression = Suppression.for_address(address)
    preference = MailPreference.objects.filter(address=address).first()
    stopped = [KIND_NAMES[kind] for kind in preference.stopped_kinds] if preference else []
    digest = bool(preference and preference.digest)
    if suppression is None and not stopped and not digest:
        return None
    return {
        "suppression": suppression,
        "address": address,
        "digest": digest,
        "kinds": stopped,
        "token": emails.resume_token(address),
    }


@register.simple_tag
def take_back_url(seat) -> str:
    """Where the board page's "take my seat back" form posts."""
    return reverse("notifications:take_seat_back", args=[make_token(seat)])
