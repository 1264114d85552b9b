"""Consent at the table from the board page: take back a turn, give more time, agree to
end the game, nudge the player to move. Each is a POST through the seat's link that returns
to the board page with a message saying what happened, or why not (games.services.consent).
"""

from collections.abc import Callable

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games.links import seat_path
from games.models import Game, Seat
from games.services import consent
from games.views.seat_link import seat_link


def _act(request: HttpRequest, seat: Seat, action: Callable[[Seat], Game], done: str):
    try:
        game = action(seat)
    except consent.Refused as refused:
        messages.error(request, str(refused))
    else:
        messages.success(request, done)
        if game.status == Game.Status.FINISHED:
            messages.info(request, _("Everyone agreed: the game is over."))
    return redirect(seat_path(seat) + "#consent-heading")


@require_POST
@seat_link
def take_back(request: HttpRequest, seat: Seat) -> HttpResponse:
    return _act(request, seat, consent.take_back, _("Your last turn is taken back: move again."))


@require_POST
@seat_link
def more_time(request: HttpRequest, seat: Seat) -> HttpResponse:
    return _act(
        request, seat, consent.give_time, _("The player to move has 24 more hours this turn.")
    )


@require_POST
@seat_link
def end_game(request: HttpRequest, seat: Seat) -> HttpResponse:
    return _act(request, seat, consent.agree_to_end, _("You agreed to end the game now."))


@require_POST
@seat_link
def nudge(request: HttpRequest, seat: Seat) -> HttpResponse:
    return _act(request, seat, consent.nudge, _("The player to move gets a short reminder."))
