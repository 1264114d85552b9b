"""A signed-in reader's own language choice, over their browser's (issue 19)."""

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import translation


class AccountLanguageMiddleware:
    """Activates the language chosen in the account's preferences, if any.

    Runs after LocaleMiddleware (cookie, then Accept-Language) and the authentication
    middleware; pages reached through a seat link choose again (games.words.languages).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        chosen = getattr(user, "language", "") if user is not None else ""
        if chosen and user.is_authenticated:
            translation.activate(chosen)
            request.LANGUAGE_CODE = chosen
        # LocaleMiddleware's response half then says it in Content-Language.
        return self.get_response(request)
