"""The public list of finished games: the queries behind /history/ and the front page."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Prefetch, QuerySet

from games import rules
from games.models import Game, Seat
from games.rules.turns import game_result


def finished_games(player: str = "") -> QuerySet[Game]:
    """Finished games, the latest first, with their seats; ``player`` filters by a
    player's name (any part of it, any case)."""
    games = Game.objects.filter(status=Game.Status.FINISHED)
    player = player.strip()
    if player:
        games = games.filter(pk__in=Seat.objects.filter(name__icontains=player).values("game_id"))
    return games.order_by("-finished_at", "-pk").prefetch_related(
        Prefetch("seats", queryset=Seat.objects.order_by("position"))
    )


def winners(game: Game) -> list[Seat]:
    """The seats that won a finished game (tied seats share the win)."""
    if game.status != Game.Status.FINISHED or not game.scores:
        return []
    best = set(game_result(game.scores))
    return [seat for seat in game.seats.all() if seat.position in best]


@dataclass(frozen=True)
class FinishedGame:
    """A finished game as the public list shows it."""

    game: Game
    board_title: str
    players: list[dict]  # name, score, won
    winners: list[str]


def summarize(game: Game) -> FinishedGame:
    """``game`` (finished, seats prefetched) for the list of finished games."""
    won = {seat.position for seat in winners(game)}
    seats = list(game.seats.all())
    return FinishedGame(
        game=game,
        board_title=rules.get_board(game.board).title,
        players=[
            {"name": seat.name, "score": game.scores[seat.position], "won": seat.position in won}
            for seat in seats
        ],
        winners=[seat.name for seat in seats if seat.position in won],
    )
