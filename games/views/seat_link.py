"""Views reached through a signed seat link: the token in the URL becomes the seat."""

from collections.abc import Callable
from functools import wraps

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation

from games.forms import EmailForm
from games.links import BadLink, read_seat, seat_for_token
from games.models import Seat
from games.words.languages import language_for


def seat_link(
    view: Callable | None = None,
    *,
    revoked_too: bool = False,
    read: Callable[[int, int], Seat | None] = read_seat,
):
    """Resolve the view's ``token`` to its seat, or answer the bad-link page.

    The view is called as ``view(request, seat, ...)``, in the seat's language. With
    ``revoked_too``, a link that a newer one replaced still reaches the view with its seat
    (asking for a fresh link must work from an old one). ``read`` reads the seat (see
    games.links.seat_for_token).
    """

    def decorate(view: Callable) -> Callable:
        @wraps(view)
        def wrapper(request: HttpRequest, token: str, *args, **kwargs) -> HttpResponse:
            try:
                # A POST through a fresh link makes it the seat's current link.
                seat = seat_for_token(token, use=request.method == "POST", read=read)
            except BadLink as exc:
                if not (revoked_too and exc.seat is not None):
                    return bad_link(request, token, exc)
                seat = exc.seat
            # For the request's log line (pbem/logs.py): which game and seat, no token.
            request.log_context = {"game": seat.game_id, "seat": seat.position}
            # The seat's player reads their own language, whatever the browser asks for.
            language = language_for(seat)
            with translation.override(language):
                request.LANGUAGE_CODE = language
                response = view(request, seat, *args, **kwargs)
                response.headers["Content-Language"] = language
            return response

        return wrapper

    return decorate(view) if view is not None else decorate


def bad_link(request: HttpRequest, token: str, exc: BadLink) -> HttpResponse:
    """A clear page for a link that does not open a seat: 403 when it was replaced by a
    newer one (and a way to get that), 404 when it never was one."""
    context = {"reason": exc.reason, "token": token, "form": EmailForm()}
    status = 403 if exc.reason == "revoked" else 404
    if exc.seat is None:
        return render(request, "games/bad_link.html", context, status=status)
    # A replaced link still names its seat: its player reads their own language.
    language = language_for(exc.seat)
    with translation.override(language):
        request.LANGUAGE_CODE = language
        response = render(request, "games/bad_link.html", context, status=status)
        response.headers["Content-Language"] = language
    return response
