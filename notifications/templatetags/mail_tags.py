from django import template
from django.db.models import Subquery
from django.urls import reverse

from games.links import make_token
from games.models import Seat
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
    # One query for both rows (on every board page): the seat's row carries them.
    preference = MailPreference.objects.filter(address=address)
    reason, digest, kinds = (
        Seat.objects.filter(pk=seat.pk)
        .values_list(
            Subquery(Suppression.objects.filter(address=address).values("reason")[:1]),
            Subquery(preference.values("digest")[:1]),
            Subquery(preference.values("stopped_kinds")[:1]),
        )
        .get()
    )
    stopped = [KIND_NAMES[kind] for kind in kinds or ()]
    if reason is None and not stopped and not digest:
        return None
    return {
        "suppression": {"reason": reason, "address": address} if reason else None,
        "address": address,
        "digest": bool(digest),
        "kinds": stopped,
        "token": emails.resume_token(address),
    }


@register.simple_tag
def take_back_url(seat) -> str:
    """Where the board page's "take my seat back" form posts."""
    return reverse("notifications:take_seat_back", args=[make_token(seat)])
