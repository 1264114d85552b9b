from django import template
from django.urls import reverse

from games.links import make_token
from notifications import emails
from notifications.models import Suppression

register = template.Library()


@register.simple_tag
def mail_stopped(seat) -> dict | None:
    """Why mail to ``seat``'s address is stopped, with the token to turn it back on."""
    if seat is None or seat.is_bot or not seat.email:
        return None
    suppression = Suppression.for_address(seat.email)
    if suppression is None:
        return None
    return {"suppression": suppression, "token": emails.resume_token(suppression.address)}


@register.simple_tag
def take_back_url(seat) -> str:
    """Where the board page's "take my seat back" form posts."""
    return reverse("notifications:take_seat_back", args=[make_token(seat)])
