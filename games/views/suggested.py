"""One-tap moves: each suggestion in a your-turn email links here.

GET shows the suggested move on the board and changes nothing (mail scanners and link
previews open links); the page's button POSTs it, through the one write path. A
suggestion is stale once the board changed after the email (a move or a new round):
then the page says so and links to the board as it is.
"""

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from games import rules, services
from games.derived import snapshots
from games.links import seat_path
from games.models import Seat
from games.pages.drawing import Highlight, board_svg, render_svg
from games.views.seat_link import seat_link
from games.words import suggestions
from games.words.explanations import explain


@require_http_methods(["GET", "POST"])
@seat_link
def play(request: HttpRequest, seat: Seat, version: int, number: int) -> HttpResponse:
    game = seat.game
    if not 0 < version <= game.version:
        raise Http404("No such version of this game.")
    emailed = snapshots.at(game, version).state
    offered = suggestions.suggestions(emailed, seat.position, game.seat_names())
    if not 1 <= number <= len(offered):
        raise Http404("No such suggestion.")
    suggestion = offered[number - 1]
    stale = game.moved_since(version) or game.status != game.Status.ACTIVE
    if request.method == "POST" and not stale:
        try:
            services.submit_move(game, seat, suggestion.move, game.version)
        except services.GameMovedOn:
            stale = True
        except rules.IllegalMove as illegal:
            messages.error(
                request,
                _("That move is not allowed now: %(reason)s")
                % {"reason": explain(emailed.board, illegal, game.seat_names())},
            )
            return redirect(seat_path(seat))
        else:
            messages.success(request, _("Played: %(move)s.") % {"move": suggestion.words})
            return redirect(seat_path(seat))
    state = snapshots.current(game).state
    shown = Highlight()
    if not stale:  # the move drawn on the board, marked (a stale one is not shown)
        state, shown = with_move(state, seat.position, suggestion.move)
    svg = render_svg(board_svg(state, seat.position, highlight=shown, seat_names=game.seat_names()))
    context = {
        "game": game,
        "seat": seat,
        "suggestion": suggestion,
        "stale": stale,
        "board": svg,
        "board_url": seat_path(seat),
    }
    return render(request, "games/suggested.html", context, status=409 if stale else 200)


def with_move(
    state: rules.GameState, seat: int, move: rules.Move
) -> tuple[rules.GameState, Highlight]:
    """The board as ``move`` would leave it, and the mark on what it adds (its track or
    start marker): the move's own event only, never the scoring of a round it would end.
    A pass, or a move the rules refuse, leaves the board as it is."""
    try:
        events = rules.decide(state, seat, move)
    except rules.IllegalMove:
        return state, Highlight()
    event = events[0] if events else {}
    board = state.board
    if event.get("type") == rules.TRACK_BUILT:
        ids = frozenset(board.line_id(rules.as_line(line)) for line in event["lines"])
        return rules.apply(state, event), Highlight(seat=seat, lines=ids)
    if event.get("type") == rules.START_PLACED:
        point = board.point_index[tuple(event["point"])]
        return rules.apply(state, event), Highlight(seat=seat, start=point)
    return state, Highlight()
