"""The table talk panel in a template: ``{% table_talk seat token readonly=True %}``."""

from django import template
from django.utils.safestring import SafeString

from games import talk_panel
from games.models import Seat

register = template.Library()


@register.simple_tag(takes_context=True)
def table_talk(context, seat: Seat, token: str, readonly: bool = False) -> SafeString:
    """``seat``'s view of its table's talk (games.talk_panel), with the page's CSRF token."""
    return talk_panel.panel(
        context.get("request"), seat, token, readonly=readonly, csrf_token=context.get("csrf_token")
    )
