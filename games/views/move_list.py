"""The list of every move and the replay's single steps: the parts that the board page and
the replay fetch without loading a whole page (games/static/games/move_list.js and
replay.js), and the list as a page of its own for a browser without scripts.

A running game's list and steps are fetched through a seat's link (or by a signed-in player
holding a seat) and show that seat's view: the words of games.words.narration, which name
nobody's cities, and the replay's frames, masked as games.pages.replay_page says. None is
ever kept by a browser or a cache on the way.
"""

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers

from games.forms import ReplayStepForm
from games.models import Game, Seat
from games.pages import replay_page
from games.views.seat_link import seat_link


def _token(request: HttpRequest) -> str:
    return request.resolver_match.kwargs["token"]


@seat_link
def seat_moves(request: HttpRequest, seat: Seat) -> HttpResponse:
    """Every move of the seat's game in words, each a link to the replay at that move: a
    page of its own (the board page's list without scripts)."""
    token = _token(request)
    replay_url = reverse("games:seat_replay", args=[token])
    context = {
        "game": seat.game,
        "token": token,
        "list": replay_page.move_list_html(request, seat.game, seat.position, replay_url),
        "board_url": reverse("games:seat", args=[token]),
        "replay_url": replay_url,
    }
    response = render(request, "games/moves.html", context)
    add_never_cache_headers(response)
    return response


@seat_link
def seat_move_list(request: HttpRequest, seat: Seat) -> HttpResponse:
    """The same list alone (an HTML fragment), for the board page to show in place."""
    replay_url = reverse("games:seat_replay", args=[_token(request)])
    response = HttpResponse(
        replay_page.move_list_html(request, seat.game, seat.position, replay_url)
    )
    add_never_cache_headers(response)
    return response


def replay_frame(request: HttpRequest, game_id: int) -> HttpResponse:
    """One step of a game's replay (/games/<id>/replay/frame/?move=N), for whoever may see
    its replay (games.views.history.replay)."""
    game = get_object_or_404(Game, pk=game_id)
    seat = replay_page.viewer_seat(game, request.user)
    if not replay_page.may_view(game, seat):
        raise Http404("No such game")
    return _frame(request, game, seat, reverse("games:replay", args=[game.pk]))


@seat_link
def seat_replay_frame(request: HttpRequest, seat: Seat) -> HttpResponse:
    """One step of the replay of a seat's game, reached through the seat's own link."""
    return _frame(request, seat.game, seat, reverse("games:seat_replay", args=[_token(request)]))


def _frame(request: HttpRequest, game: Game, seat: Seat | None, base: str) -> HttpResponse:
    form = ReplayStepForm(request.GET)
    move = form.cleaned_data["move"] if form.is_valid() else None
    if move is None or move > game.version:
        # The script then loads the whole page, which says what is wrong.
        raise Http404("No such move")
    viewer = seat.position if seat is not None else None
    response = HttpResponse(replay_page.frame_html(request, game, viewer, move, base))
    if game.status != Game.Status.FINISHED and seat is not None:
        # A running game's step shows the viewer's hand: no copy in any cache.
        add_never_cache_headers(response)
    return response
