"""The table talk panel of a seat's pages (board page, history): messages and the forms."""

from django import template

from games import talk
from games.forms import TalkForm
from games.models import Seat, TalkMute

register = template.Library()


@register.inclusion_tag("games/_talk.html", takes_context=True)
def table_talk(context, seat: Seat, token: str, readonly: bool = False) -> dict:
    """``seat``'s view of its table's talk; with a form to write unless ``readonly``."""
    messages_list, others = [], []
    if seat.game.last_talk_at is not None:  # a table nobody has talked at reads nothing
        messages_list = list(talk.visible_to(seat))
        muted = set(TalkMute.objects.filter(seat=seat).values_list("muted_id", flat=True))
        others = [
            {"seat": other, "muted": other.pk in muted}
            for other in seat.game.seats.order_by("position")
            if other.pk != seat.pk and not other.is_bot
        ]
    return {
        "request": context.get("request"),
        "csrf_token": context.get("csrf_token"),
        "seat": seat,
        "token": token,
        "messages_list": messages_list,
        "others": others,
        "form": None if readonly or seat.is_bot else TalkForm(),
        "max_length": talk.MAX_LENGTH,
    }
