"""Keeping an open board page current: a cheap version to poll, and "I have seen this".

A GET never counts as seen: mail scanners and link previews open links too.
"""

from django import forms
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from games import services
from games.models import Seat
from games.views.seat_link import seat_link
from games.words import time_zones


class SeenForm(forms.Form):
    version = forms.IntegerField(min_value=1)
    # The zone the browser reports (Intl), for deadlines shown to a player without an
    # account; an unknown name is ignored.
    time_zone = forms.CharField(max_length=64, required=False)

    def clean_time_zone(self) -> str:
        name = self.cleaned_data["time_zone"].strip()
        return name if name and time_zones.zone(name).key == name else ""


@never_cache
@require_GET
@seat_link
def version(request: HttpRequest, seat: Seat) -> JsonResponse:
    """The game's version and whether it is this seat's turn: one row, read once."""
    game = seat.game
    return JsonResponse(
        {
            "version": game.version,
            "your_turn": game.seat_to_move == seat.position and game.status == game.Status.ACTIVE,
        }
    )


@require_POST
@seat_link
def seen(request: HttpRequest, seat: Seat) -> HttpResponse:
    """Record that the seat's player saw the board at a version (204), or say why not (400)."""
    form = SeenForm(request.POST)
    if not form.is_valid():
        return JsonResponse({"errors": form.errors}, status=400)
    services.record_seen(seat, form.cleaned_data["version"])
    reported = form.cleaned_data["time_zone"]
    if reported and reported != seat.browser_time_zone:
        services.record_browser_time_zone(seat, reported)
    return HttpResponse(status=204)
