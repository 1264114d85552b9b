"""Game history: the public list of finished games, the replay page, and the game record.

Finished games are public. A running game is shown only to its players (signed in, or
through a seat's link); everybody else gets a 404, as if it did not exist.
"""

import json

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.utils.http import content_disposition_header
from django.utils.translation import gettext as _

from games import links
from games.forms import PlayerFilterForm, ReplayStepForm
from games.models import Game, Seat
from games.pages import finished_games, replay_page
from games.services import rematch
from games.views.seat_link import seat_link

GAMES_PER_PAGE = 20


def history_list(request: HttpRequest) -> HttpResponse:
    """Finished games, the latest first, filtered by a player's name."""
    form = PlayerFilterForm(request.GET)
    player = form.cleaned_data["player"] if form.is_valid() else ""
    paginator = Paginator(finished_games.finished_games(player), GAMES_PER_PAGE)
    page = paginator.get_page(request.GET.get("page"))
    rows = [finished_games.summarize(game) for game in page]
    return render(
        request,
        "games/history/list.html",
        {"form": form, "player": player, "page": page, "rows": rows},
    )


def replay(request: HttpRequest, game_id: int) -> HttpResponse:
    """A game, move by move: /games/<id>/replay/?move=N is the permalink of move N."""
    game = get_object_or_404(Game, pk=game_id)
    seat = replay_page.viewer_seat(game, request.user)
    if not replay_page.may_view(game, seat):
        raise Http404("No such game")
    base = reverse("games:replay", args=[game.pk])
    record_url = reverse("games:record", args=[game.pk])
    again_url = reverse("games:account_again", args=[game.pk])
    return _replay(request, game, seat, base, record_url, again_url=again_url)


@seat_link
def seat_replay(request: HttpRequest, seat: Seat) -> HttpResponse:
    """The replay of a seat's game, through the seat's own link."""
    token = request.resolver_match.kwargs["token"]
    base = reverse("games:seat_replay", args=[token])
    record_url = reverse("games:seat_record", args=[token])
    board_url = reverse("games:seat", args=[token])
    again_url = reverse("games:play_again", args=[token])
    return _replay(
        request,
        seat.game,
        seat,
        base,
        record_url,
        board_url=board_url,
        talk_token=token,
        again_url=again_url,
    )


def record(request: HttpRequest, game_id: int) -> HttpResponse:
    """The game record (pbem-game-record/1) as a download."""
    game = get_object_or_404(Game, pk=game_id)
    seat = replay_page.viewer_seat(game, request.user)
    if not replay_page.may_view(game, seat):
        raise Http404("No such game")
    return _record(game, seat)


@seat_link
def seat_record(request: HttpRequest, seat: Seat) -> HttpResponse:
    """The game record of a seat's game, as that seat may see it."""
    return _record(seat.game, seat)


def _replay(
    request: HttpRequest,
    game: Game,
    seat: Seat | None,
    base: str,
    record_url: str,
    board_url: str = "",
    talk_token: str = "",
    again_url: str = "",
) -> HttpResponse:
    """The replay page; ``again_url`` is where ``seat``'s player would play again, shown
    only once the game is over and if they may."""
    form = ReplayStepForm(request.GET)
    wanted = form.cleaned_data["move"] if form.is_valid() else None
    error, status = "", 200
    if not form.is_valid() or (wanted is not None and wanted > game.version):
        error = _(
            "There is no move %(move)s: this game has moves 1 to %(last)s. Here is the latest."
        ) % {"move": repr(request.GET.get("move")), "last": game.version}
        wanted, status = None, 404
    if board_url == "" and seat is not None:
        board_url = links.seat_path(seat)
    if seat is None or not rematch.may_ask(seat):  # a game over, and a player who may
        again_url = ""
    played_again = bool(again_url) and rematch.next_game_of(game) is not None
    page = replay_page.ReplayPage(
        title=game.display_name,
        status=game.status,
        finished_at=game.finished_at,
        viewer=seat.position if seat is not None else None,
        seq=wanted if wanted != game.version else None,
        error=error,
        base=base,
        record_url=record_url,
        board_url=board_url,
        again_url=again_url,
        played_again=played_again,
    )
    # The players' table talk, through a seat's link only: never in the public replay.
    talk_seat = seat if talk_token else None
    html = replay_page.replay_html(request, game, page, talk_seat, talk_token)
    response = HttpResponse(html, status=status)
    if game.status != Game.Status.FINISHED and seat is not None:
        # A running game's replay shows the viewer's hand: no copy in any cache.
        add_never_cache_headers(response)
    return response


def _record(game: Game, seat: Seat | None) -> HttpResponse:
    viewer = seat.position if seat is not None else None
    body = json.dumps(replay_page.record(game, viewer), indent=1, ensure_ascii=False)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(
        as_attachment=True, filename=f"railmail-game-{game.pk}.json"
    )
    if game.status != Game.Status.FINISHED:
        # A running game's record changes with every move and holds one player's hand.
        add_never_cache_headers(response)
    return response
