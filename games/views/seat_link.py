"""Views reached through a signed seat link: the token in the URL becomes the seat."""

from collections.abc import Callable
from functools import wraps
from typing import TypeVar

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation

from games.forms import EmailForm
from games.links import BadLink, admit, read_seat, read_token
from games.models import Seat
from games.views.seat_visit import VisitRead
from games.words.languages import language_for

Read = TypeVar("Read")


def seat_link(view: Callable | None = None, *, revoked_too: bool = False):
    """Resolve the view's ``token`` to its seat, or answer the bad-link page. With
    ``revoked_too`` a replaced link still works: asking for a fresh link must."""

    def decorate(view: Callable) -> Callable:
        return opened_by_link(view, read_seat, lambda seat: seat, revoked_too=revoked_too)

    return decorate(view) if view is not None else decorate


def table_link(read: VisitRead) -> Callable[[Callable], Callable]:
    """As ``seat_link``, but the view gets the seat's visit (the seat at its table, and why
    mail to it is stopped), read in one statement."""

    def decorate(view: Callable) -> Callable:
        return opened_by_link(view, read, lambda visit: visit.at.seat)

    return decorate


def opened_by_link(
    view: Callable,
    read: Callable[[int, int], Read | None],
    seat_of: Callable[[Read], Seat],
    *,
    revoked_too: bool = False,
) -> Callable:
    """``view`` behind its seat link, given what ``read`` reads."""

    @wraps(view)
    def wrapper(request: HttpRequest, token: str, *args, **kwargs) -> HttpResponse:
        found = None
        try:
            key = read_token(token)
            found = read(key.game_id, key.position)
            # A POST through a fresh link makes it the seat's current link.
            use = request.method == "POST"
            seat = admit(None if found is None else seat_of(found), key, use=use)
        except BadLink as exc:
            if not (revoked_too and exc.seat is not None):
                return bad_link(request, token, exc)
            seat = exc.seat
        # For the request's log line, which must not hold the token.
        request.log_context = {"game": seat.game_id, "seat": seat.position}
        # The seat's player reads their own language, whatever the browser asks for.
        language = language_for(seat)
        with translation.override(language):
            request.LANGUAGE_CODE = language
            response = view(request, found, *args, **kwargs)
            response.headers["Content-Language"] = language
        return response

    return wrapper


def bad_link(request: HttpRequest, token: str, exc: BadLink) -> HttpResponse:
    """A link that opens no seat: 403 with a way to a fresh one when it was replaced,
    404 when it never was one."""
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
