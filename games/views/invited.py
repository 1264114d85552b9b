"""An invited player's answer besides joining (games.views.play.join): declining.

A GET never declines (mail scanners open links): it leads to the invitation page, whose
button POSTs.
"""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from games.models import Seat
from games.services.seats import NotDeclined, decline_seat
from games.views.seat_link import seat_link


@require_http_methods(["GET", "HEAD", "POST"])
@seat_link
def decline(request: HttpRequest, seat: Seat) -> HttpResponse:
    """Decline the invitation to a seat; the game's creator is told by email."""
    invitation = reverse("games:seat", args=[request.resolver_match.kwargs["token"]])
    if request.method != "POST":
        return redirect(invitation)
    try:
        decline_seat(seat)  # the invitation page then says so, and still offers to join
    except NotDeclined as exc:
        messages.error(request, str(exc))
    return redirect(invitation)
