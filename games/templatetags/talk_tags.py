"""The table talk panel of a seat's pages (board page, history): messages and the forms."""

from django import template
from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from games import fragments, talk
from games.forms import TalkForm
from games.models import Seat, TalkMute

register = template.Library()


@register.simple_tag(takes_context=True)
def table_talk(context, seat: Seat, token: str, readonly: bool = False) -> SafeString:
    """``seat``'s view of its table's talk; with a form to write unless ``readonly``."""
    request = context.get("request")
    writes = not (readonly or seat.is_bot)
    if seat.game.last_talk_at is None:
        # A table nobody has talked at: the same panel for every request through this
        # link (in its language), rendered once; the CSRF token is filled in each time.
        def render(holes: fragments.Holes) -> dict[str, str]:
            panel = _panel(seat, token, [], [], writes, holes.csrf_token)
            return {"panel": render_to_string("games/_talk.html", panel)}

        return fragments.cached("talk-empty", (token, writes), render).fill("panel", request)
    messages_list = list(talk.visible_to(seat))
    muted = set(TalkMute.objects.filter(seat=seat).values_list("muted_id", flat=True))
    others = [
        {"seat": other, "muted": other.pk in muted}
        for other in seat.game.seats.order_by("position")
        if other.pk != seat.pk and not other.is_bot
    ]
    panel = _panel(seat, token, messages_list, others, writes, context.get("csrf_token"))
    return render_to_string("games/_talk.html", panel, request)


def _panel(seat, token, messages_list, others, writes, csrf_token) -> dict:
    return {
        "csrf_token": csrf_token,
        "seat": seat,
        "token": token,
        "messages_list": messages_list,
        "others": others,
        "form": TalkForm() if writes else None,
        "max_length": talk.MAX_LENGTH,
    }
