"""Playing through a signed seat link: the board page, moves, joining, fresh links.

GET never changes anything (mail scanners open links); every change is a POST with a
CSRF token, and a move carries the game version the player saw.
"""

from collections.abc import Callable
from functools import wraps

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db.models import F, Q
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.http.response import HttpResponseRedirectBase
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from games import rules, services
from games.derived import snapshots
from games.forms import EmailForm, MoveForm
from games.links import seat_path
from games.models import Game, Seat
from games.pages import board_page, consent_panel, talk_panel
from games.pages.board_page import PageFacts, seat_page
from games.pages.table_read import TableRead
from games.views import plans
from games.views.seat_link import seat_link, table_link
from games.views.seat_visit import SeatVisit, VisitRead
from games.words.explanations import explain
from notifications import channel_views
from pbem import ratelimits

read_visit = VisitRead(TableRead())

# A query, not a message in a signed cookie: a move is the site's most frequent write.
MOVED = "moved"


def never_cache_pages(view: Callable) -> Callable:
    """``never_cache`` for pages (a board page shows the hand), not redirects: they show
    nothing, and a 302 is stored only when its headers ask for it (RFC 9111)."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        response = view(request, *args, **kwargs)
        if not isinstance(response, HttpResponseRedirectBase):
            add_never_cache_headers(response)
        return response

    return wrapper


@require_http_methods(["GET", "HEAD", "POST"])
@never_cache_pages
@table_link(read_visit)
def seat(request: HttpRequest, visit: SeatVisit) -> HttpResponse:
    """A seat's board page; a POST plays the seat's move."""
    at = visit.at
    seat = at.seat
    game = seat.game
    if game.status == Game.Status.SETUP:
        # A move before the game starts: show where things stand instead.
        status = 409 if request.method == "POST" else 200
        return render(request, "games/invitation.html", {"game": game, "seat": seat}, status=status)
    if request.method == "POST":
        return play_move(request, visit)
    return show_board(request, visit)


def show_board(request: HttpRequest, visit: SeatVisit) -> HttpResponse:
    """What a GET shows: the board page, rendered once per game version and cached."""
    at = visit.at
    seat = at.seat
    game = seat.game
    # For the tab's title: a player with many tabs open sees where they are awaited.
    your_turn = (
        game.status == Game.Status.ACTIVE and game.seat_to_move == seat.position and not seat.is_bot
    )
    around = {
        "your_turn": your_turn,
        # Where the player's move led: it is in, and the game waits for others.
        "just_moved": MOVED in request.GET and not your_turn,
        # Where to go next, once this game waits for others.
        "next_waiting": None if your_turn else waiting_elsewhere(seat),
        "poll_seconds": settings.RAILMAIL_BOARD_POLL_SECONDS,
        "mail_stopped": visit.mail_stopped,
    }
    token = request.resolver_match.kwargs["token"]
    facts = PageFacts.of(at, token)

    # The seat's channels besides email.
    channels = board_page.Insert(
        lambda csrf_token: channel_views.panel(request, seat, token, csrf_token),
        channel_views.fixed(seat),
    )
    return HttpResponse(board_page.page(request, seat, facts, around, channels=channels))


def play_move(request: HttpRequest, visit: SeatVisit) -> HttpResponse:
    """What a POST does: play the move, or, without JavaScript, offer the lines that may
    follow the first; a refused move redraws the board with the reason."""
    at = visit.at
    seat = at.seat
    game = seat.game
    snapshot = snapshots.current(game)
    state = snapshot.state
    my_turn = state.seat_to_move == seat.position and not seat.is_bot
    form = MoveForm(request.POST, state=state, seat=seat.position)
    seen = request.POST.get("version", "")
    if seen and seen != str(game.version):
        return _board(request, visit, snapshot, form if my_turn else None, moved_on=True)
    if not my_turn:
        form.add_error(None, _("It is not your turn."))
        return _board(request, visit, snapshot, None, status=400, error=form)
    if request.POST.get("step") == "second":
        return second_line(request, visit, snapshot, form)
    if not form.is_valid():
        return _board(request, visit, snapshot, form, status=400)
    try:
        # The form was checked on the game as read, the version the player saw.
        move = services.MoveRequest(game, seat, at.seats, snapshot)
        services.make_move(move, form.cleaned_data["move"])
    except services.GameMovedOn:
        game.refresh_from_db()
        return _board(request, visit, snapshots.current(game), None, moved_on=True)
    except rules.IllegalMove as exc:
        # Lines and points named as the page names them, in the reader's language.
        form.add_error(None, explain(state.board, exc, game.seat_names()))
        return _board(request, visit, snapshot, form, status=422)
    # The plan chosen for the turns after this one, if any (games.views.plans).
    then = plans.after_move(request, seat, request.resolver_match.kwargs["token"])
    if then is not None:
        return then
    # Back to the link the move came through: its check let the move through, so it needs
    # no signing anew.
    return HttpResponseRedirect(f"{request.path}?{MOVED}")


def second_line(
    request: HttpRequest, visit: SeatVisit, snapshot: snapshots.Snapshot, form: MoveForm
) -> HttpResponse:
    """Without JavaScript, the first line is chosen: offer only the lines that may follow."""
    seat = visit.at.seat
    try:
        first = form.fields["line1"].clean(request.POST.get("line1", ""))
    except ValidationError:
        first = None  # not a line that may be built now
    if first is None:
        form.add_error("line1", _("Choose the first line, then a second one."))
        return _board(request, visit, snapshot, form, status=400)
    second = MoveForm(
        initial={"version": snapshot.version, "line1": first},
        state=snapshot.state,
        seat=seat.position,
        first_line=first,
    )
    return _board(request, visit, snapshot, second)


def waiting_elsewhere(seat: Seat) -> dict | None:
    """The other game that has waited longest for this player's move: where to go next."""
    if seat.is_bot or not seat.email:
        return None
    # Addresses are stored normalized (lower case): an exact match reads the email index.
    mine = Q(user_id=seat.user_id) if seat.user_id else Q(email=seat.email.lower())
    other = (
        Seat.objects.filter(
            mine,
            game__status=Game.Status.ACTIVE,
            game__seat_to_move=F("position"),
            is_bot=False,
            autopilot=False,
        )
        .exclude(game_id=seat.game_id)
        .order_by(F("game__deadline").asc(nulls_last=True), "game_id")
        # Only what the link and the title need (this runs on every board page).
        .only("game_id", "position", "link_nonce", "game__title", "game__board")
        .select_related("game")
        .first()
    )
    if other is None:
        return None
    return {"title": other.game.display_name, "path": seat_path(other)}


def _board(request, visit, snapshot, form, *, status=200, moved_on=False, error=None):
    """The page after a move that was not taken: rendered afresh, never cached."""
    at = visit.at
    seat = at.seat
    token = request.resolver_match.kwargs["token"]
    table = PageFacts.of(at, token)
    context = seat_page(snapshot, table, form)
    context["moved_on"] = moved_on
    context["error_form"] = error
    page = {
        "game": seat.game,
        "seat": seat,
        "token": token,
        "poll_seconds": settings.RAILMAIL_BOARD_POLL_SECONDS,
        "mail_stopped": visit.mail_stopped,
        "main": render_to_string("games/_board_main.html", context, request),
        "scripts": render_to_string("games/_board_scripts.html", context, request),
        "talk": talk_panel.panel(request, seat, token),
        "consent": consent_panel.panel(seat, token, snapshot, at.rows),
        "channels": channel_views.panel(request, seat, token),
    }
    return render(request, "games/board.html", page, status=409 if moved_on else status)


@require_POST
@seat_link
def join(request: HttpRequest, seat: Seat) -> HttpResponse:
    """Accept the invitation to a seat; the game starts when the last player joins."""
    game = services.accept_seat(seat)
    if game.status == Game.Status.SETUP:
        messages.success(request, _("You have joined. The game starts when everyone has."))
    else:
        messages.success(request, _("You have joined, and the game has started."))
    return redirect(seat_path(seat))


@require_POST
@ratelimits.per_client("fresh-link-client")
@seat_link(revoked_too=True)
def fresh_link(request: HttpRequest, seat: Seat) -> HttpResponse:
    """Mail a fresh link to the seat's address, even from a revoked link. The answer is the
    same whether or not the address was the seat's, so nobody learns who plays where."""
    form = EmailForm(request.POST)
    if not form.is_valid():
        return render(
            request,
            "games/bad_link.html",
            # The link as given, never the seat's current one: it may be an old link.
            {"reason": "revoked", "form": form, "token": request.resolver_match.kwargs["token"]},
            status=400,
        )
    # Counted whether or not the address is the seat's: guesses count too.
    ratelimits.check(
        request,
        ("fresh-link-seat", str(seat.pk)),
        ("fresh-link-address", form.cleaned_data["email"].lower()),
    )
    services.send_fresh_link(seat, form.cleaned_data["email"])
    return render(request, "games/fresh_link_sent.html", {"email": form.cleaned_data["email"]})
