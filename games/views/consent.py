"""Consent at the table and changes of seat from the board page, each a POST through the
seat's link that returns to the board page saying what happened, or why not.
"""

from collections.abc import Callable

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games.forms import ReplacePlayerForm
from games.links import seat_path
from games.models import Game, Seat
from games.services import consent, mutes, substitutes
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


@require_POST
@seat_link
def leave(request: HttpRequest, seat: Seat) -> HttpResponse:
    """Leave the game: the seat's links die with this answer, so it goes to the home page."""
    try:
        substitutes.leave(seat)
    except substitutes.Refused as refused:
        messages.error(request, str(refused))
        return redirect(seat_path(seat) + "#consent-heading")
    messages.success(
        request, _("You left the game. A bot plays your seat until a substitute takes it.")
    )
    return redirect("games:home")


@require_POST
@seat_link
def substitute(request: HttpRequest, seat: Seat, position: int) -> HttpResponse:
    """Invite someone by email to take over the seat at ``position``."""
    back = redirect(seat_path(seat) + "#consent-heading")
    taken = seat.game.seats.filter(position=position).first()
    form = ReplacePlayerForm(request.POST)
    if taken is None or not form.is_valid():
        messages.error(request, _("Give the substitute's name and email address."))
        return back
    try:
        handed = substitutes.invite_substitute(
            seat, taken, form.cleaned_data["name"], form.cleaned_data["email"]
        )
    except substitutes.Refused as refused:
        messages.error(request, str(refused))
    else:
        if handed is None:
            messages.success(
                request,
                _("Your backing is noted: the invitation goes when most of the table backs it."),
            )
        else:
            messages.success(
                request, _("%(name)s is invited to take over the seat.") % {"name": handed.name}
            )
    return back


@require_POST
@seat_link
def mute(request: HttpRequest, seat: Seat) -> HttpResponse:
    """Mute the game's notices but those of the player's own turn, or hear them again."""
    mutes.set_muted(seat, not seat.notices_muted)
    if seat.notices_muted:
        messages.success(request, _("Muted: you hear of this game only when it is your turn."))
    else:
        messages.success(request, _("You hear of everything in this game again."))
    return redirect(seat_path(seat) + "#consent-heading")
