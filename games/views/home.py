"""The front page: a signed-in player's games, or a welcome for visitors."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from games.pages import dashboard, finished_games

RECENT_FINISHED_GAMES = 5


def home(request: HttpRequest) -> HttpResponse:
    """My games, the ones waiting for my move first; a landing page for visitors."""
    if request.user.is_authenticated:
        context = {"dashboard": dashboard.dashboard(request.user)}
    else:
        recent = finished_games.finished_games()[:RECENT_FINISHED_GAMES]
        context = {"recent": [finished_games.summarize(game) for game in recent]}
    return render(request, "games/home.html", context)
