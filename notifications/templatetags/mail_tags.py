from django import template
from django.urls import reverse

from games.links import make_token

register = template.Library()


@register.simple_tag
def take_back_url(seat) -> str:
    """Where the board page's "take my seat back" form posts."""
    return reverse("notifications:take_seat_back", args=[make_token(seat)])
