"""The table talk panel of a seat's pages (board page, history): messages and the forms."""

from __future__ import annotations

from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from games.forms import TalkForm
from games.models import Seat, TalkMute
from games.pages import page_cache
from games.services import talk


def panel(
    request: HttpRequest | None,
    seat: Seat,
    token: str,
    *,
    readonly: bool = False,
    csrf_token: str | None = None,
) -> SafeString:
    """``seat``'s view of its table's talk; with a form to write unless ``readonly``.
    ``csrf_token`` goes into the forms (by default the request's own)."""
    writes = not (readonly or seat.is_bot)
    if quiet(seat):
        # The same panel for every request through this link (in its language), rendered
        # once; the CSRF token is filled in each time.
        fragment = page_cache.cached(
            "talk-empty",
            (token, writes),
            lambda holes: {"panel": quiet_panel(seat, token, holes.csrf_token, readonly)},
        )
        return fragment.fill("panel", request, csrf_token)
    messages_list = list(talk.visible_to(seat))
    muted = set(TalkMute.objects.filter(seat=seat).values_list("muted_id", flat=True))
    others = [
        {"seat": other, "muted": other.pk in muted}
        for other in seat.game.seats.order_by("position")
        if other.pk != seat.pk and not other.is_bot
    ]
    context = _context(seat, token, messages_list, others, writes, csrf_token)
    return render_to_string("games/_talk.html", context, request)


def quiet(seat: Seat) -> bool:
    """Nobody has talked at ``seat``'s table: its panel says so, and only the CSRF token
    and the link's language change it."""
    return seat.game.last_talk_at is None


def quiet_panel(seat: Seat, token: str, csrf_token: str, readonly: bool = False) -> SafeString:
    """The panel of a ``quiet`` table, with ``csrf_token`` in its form."""
    writes = not (readonly or seat.is_bot)
    return render_to_string("games/_talk.html", _context(seat, token, [], [], writes, csrf_token))


def _context(seat, token, messages_list, others, writes, csrf_token) -> dict:
    context = {
        "seat": seat,
        "token": token,
        "messages_list": messages_list,
        "others": others,
        "form": TalkForm() if writes else None,
        "max_length": talk.MAX_LENGTH,
    }
    if csrf_token is not None:
        context["csrf_token"] = csrf_token
    return context
