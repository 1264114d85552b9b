"""The rules of each game, in our own words, in the reader's language: TransAmerica,
TransEuropa, and the coloured-track variant. Linked from invitations and board pages,
which name the reader's language (``?lang=``): a player with only links has no cookie
saying it."""

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation

from games import rules

# The variant's page, beside one page per board.
COLOURED_TRACK = "coloured-track"


def rules_page(request: HttpRequest, name: str) -> HttpResponse:
    """The rules of board ``name``, or of the coloured-track variant."""
    if name != COLOURED_TRACK and name not in rules.BOARD_NAMES:
        raise Http404("No such game")
    asked = request.GET.get("lang", "")
    language = asked if asked in dict(settings.LANGUAGES) else request.LANGUAGE_CODE
    with translation.override(language):
        request.LANGUAGE_CODE = language
        if name == COLOURED_TRACK:
            response = render(request, "games/rulebook_coloured.html")
        else:
            board = rules.get_board(name)
            context = {
                "board": board,
                "other_boards": [rules.get_board(n) for n in rules.BOARD_NAMES if n != name],
                "lang": language,
            }
            response = render(request, "games/rulebook.html", context)
        response.headers["Content-Language"] = language
    return response
