"""A player's dashboard: their games, the ones waiting for their move first."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Prefetch

from games import links
from games.models import Game, Seat
from games.pages.finished_games import winners


@dataclass(frozen=True)
class DashboardEntry:
    """One of a player's games, as the dashboard lists it."""

    game: Game
    seat: Seat  # the player's own seat
    seats: list[Seat]

    @property
    def my_turn(self) -> bool:
        game = self.game
        return game.status == Game.Status.ACTIVE and game.seat_to_move == self.seat.position

    @property
    def seat_to_move(self) -> Seat | None:
        if self.game.status != Game.Status.ACTIVE or self.game.seat_to_move is None:
            return None
        return next((s for s in self.seats if s.position == self.game.seat_to_move), None)

    @property
    def winners(self) -> list[Seat]:
        return winners(self.game)

    @property
    def players(self) -> list[dict]:
        """Every seat's name and score (once the game has started), and which is mine."""
        started = self.game.status != Game.Status.SETUP
        return [
            {
                "name": seat.name,
                "score": self.game.scores[seat.position]
                if started and seat.position < len(self.game.scores)
                else None,
                "is_me": seat.position == self.seat.position,
            }
            for seat in self.seats
        ]

    @property
    def board_path(self) -> str:
        """The signed link to the player's own board page."""
        return links.seat_path(self.seat)

    @property
    def board_title(self) -> str:
        return self.game.board_title


@dataclass(frozen=True)
class Dashboard:
    waiting_for_me: list[DashboardEntry]
    active: list[DashboardEntry]
    setup: list[DashboardEntry]
    finished: list[DashboardEntry]
    # Games the player set up for others without a seat of their own: managed, not played.
    created: list[Game] = ()

    def __bool__(self) -> bool:
        return bool(
            self.waiting_for_me or self.active or self.setup or self.finished or self.created
        )


def dashboard(user) -> Dashboard:
    """``user``'s games, the ones waiting for their move first."""
    seats = (
        Seat.objects.filter(user=user)
        .select_related("game")
        .prefetch_related(Prefetch("game__seats", queryset=Seat.objects.order_by("position")))
        .order_by("game_id", "position")
    )
    entries: dict[int, DashboardEntry] = {}
    for seat in seats:
        # Someone holding two seats of one game sees it once, under the seat to move.
        game = seat.game
        entry = DashboardEntry(game=game, seat=seat, seats=list(game.seats.all()))
        if game.pk not in entries or entry.my_turn:
            entries[game.pk] = entry

    def by_deadline(entry: DashboardEntry):
        deadline = entry.game.deadline
        return (deadline is None, deadline.timestamp() if deadline else 0, entry.game.pk)

    waiting = sorted((e for e in entries.values() if e.my_turn), key=by_deadline)
    active = sorted(
        (e for e in entries.values() if e.game.status == Game.Status.ACTIVE and not e.my_turn),
        key=by_deadline,
    )
    setup = sorted(
        (e for e in entries.values() if e.game.status == Game.Status.SETUP),
        key=lambda e: -e.game.pk,
    )
    finished = sorted(
        (e for e in entries.values() if e.game.status == Game.Status.FINISHED),
        key=lambda e: (e.game.finished_at is not None, e.game.finished_at, e.game.pk),
        reverse=True,
    )
    created = list(
        Game.objects.filter(created_by=user)
        .exclude(pk__in=list(entries))
        .exclude(status=Game.Status.FINISHED)
        .order_by("-pk")
    )
    return Dashboard(
        waiting_for_me=waiting, active=active, setup=setup, finished=finished, created=created
    )
