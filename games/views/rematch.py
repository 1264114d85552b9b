"""Play again: the page from which a finished table starts its next game.

Reached through a seat link (the board page of a finished game, the game-over email) or,
for a signed-in player, by the game's number. A GET shows the page and never starts a
game (mail scanners open links); its button POSTs. A second press, from any seat, leads
to the game the first one started.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from games.links import seat_path
from games.models import Game, Seat
from games.services import rematch
from games.views.seat_link import seat_link


@require_http_methods(["GET", "HEAD", "POST"])
@seat_link
def seat_again(request: HttpRequest, seat: Seat) -> HttpResponse:
    """Play again, through a seat's link."""
    token = request.resolver_match.kwargs["token"]
    board = reverse("games:seat", args=[token])
    return _again(request, seat, reverse("games:play_again", args=[token]), board, None)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def account_again(request: HttpRequest, game_id: int) -> HttpResponse:
    """Play again, for a signed-in player holding a seat of the game."""
    game = get_object_or_404(Game, pk=game_id)
    user = request.user
    seat = (
        game.seats.filter(Q(user=user) | Q(email__iexact=user.email), is_bot=False)
        .exclude(email="")
        .order_by("position")
        .first()
    )
    if seat is None:
        raise Http404("Only a player of the game may start its next one.")
    board = reverse("games:replay", args=[game.pk])
    action = reverse("games:account_again", args=[game.pk])
    return _again(request, seat, action, board, user)


def _again(request: HttpRequest, seat: Seat, action: str, back: str, account) -> HttpResponse:
    game = seat.game
    if request.method == "POST":
        try:
            new_seat, created = rematch.play_again(seat, account)
        except rematch.NotAgain as exc:
            context = {"game": game, "action": action, "back": back, "refusal": str(exc)}
            return render(request, "games/play_again.html", context, status=409)
        if created:
            messages.success(
                request, _("The new game is set up. The other players are invited by email.")
            )
        else:
            messages.info(request, _("This table's next game was already set up: here it is."))
        if not new_seat.email:
            # No email will ever bring this player the link: the page they land on is it.
            messages.warning(
                request,
                _(
                    "We have no email address for you: keep this page's address (bookmark "
                    "it), as it is your only link to the new game."
                ),
            )
        return redirect(seat_path(new_seat))
    context = {"game": game, "action": action, "back": back, "may": rematch.may_ask(seat)}
    if rematch.next_game_of(game) is not None:
        context["next_path"] = seat_path(rematch.seat_in_successor(game, seat))
    elif context["may"]:
        players = rematch.next_table(game, seat)
        context["players"] = players
        # The seats turn by one: the asking seat's place in the new order.
        context["you"] = (seat.position - 1) % len(players)
    return render(request, "games/play_again.html", context)
