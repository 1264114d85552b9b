"""Table talk from the board page: write a message, mute a player, report a message.

Each is a POST through the seat's link and returns to the board page, with a message
saying what happened (or why not).
"""

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games.forms import TalkForm
from games.links import seat_path
from games.models import Seat, TalkMessage
from games.services import talk
from games.views.seat_link import seat_link


def _back(seat: Seat) -> HttpResponse:
    return redirect(seat_path(seat) + "#talk-heading")


@require_POST
@seat_link
def write(request: HttpRequest, seat: Seat) -> HttpResponse:
    form = TalkForm(request.POST)
    if not form.is_valid():
        for error in form.errors.get("text", []):
            messages.error(request, _("Your message was not sent: %(why)s") % {"why": error})
        return _back(seat)
    try:
        talk.post(seat, form.cleaned_data["text"])
    except talk.Refused as refused:
        messages.error(request, _("Your message was not sent: %(why)s") % {"why": refused})
    else:
        messages.success(request, _("Your message is on the table."))
    return _back(seat)


@require_POST
@seat_link
def mute(request: HttpRequest, seat: Seat, position: int) -> HttpResponse:
    """Mute the player at ``position``, or read them again if they are muted."""
    other = seat.game.seats.filter(position=position).first()
    if other is None:
        raise Http404("No such seat at this table.")
    if seat.mutes.filter(muted=other).exists():
        talk.unmute(seat, other)
        messages.success(request, _("You read %(name)s's messages again.") % {"name": other.name})
    else:
        try:
            talk.mute(seat, other)
        except talk.Refused as refused:
            messages.error(request, str(refused))
        else:
            messages.success(
                request, _("You no longer read %(name)s's messages here.") % {"name": other.name}
            )
    return _back(seat)


@require_POST
@seat_link
def report(request: HttpRequest, seat: Seat, message_id: int) -> HttpResponse:
    message = TalkMessage.objects.filter(pk=message_id, game_id=seat.game_id).first()
    if message is None:
        raise Http404("No such message at this table.")
    talk.report(seat, message)
    messages.success(request, _("Thank you: the site's staff will look at that message."))
    return _back(seat)
