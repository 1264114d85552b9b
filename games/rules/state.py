"""The state of a game, as rebuilt from its event log (see ``replay``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from .boards import Board
from .options import Options

# Phases of a game.
AWAITING_DEAL = "awaiting_deal"  # before a round: the service must deal (round_started)
PLACING = "placing"  # the first turn of each seat in a round: start markers
BUILDING = "building"  # later turns: track
ROUND_OVER = "round_over"  # a round has just ended; round_scored must follow
OVER = "over"  # the game has ended


class Track(NamedTuple):
    """A built line: who built it and whether it is that seat's coloured (exclusive) track."""

    seat: int
    exclusive: bool


@dataclass
class GameState:
    """Everything the rules need to know about a game at one point of its log (read-only
    outside the engine's own copies)."""

    board: Board
    options: Options
    seat_count: int
    scores: list[int]
    game_ends_at_score: int
    version: int = 0
    round: int = 0
    first_seat: int = 0
    phase: str = AWAITING_DEAL
    turn: int = 0  # turns taken in this round
    hands: list[tuple[str, ...]] = field(default_factory=list)
    starts: list[int | None] = field(default_factory=list)
    built: dict[int, Track] = field(default_factory=dict)  # line id -> track, in build order
    supply_left: int = 0
    exclusive_left: list[int] = field(default_factory=list)
    joined: list[int] = field(default_factory=list)  # seats whose cities are joined (round over)
    winners: list[int] = field(default_factory=list)
    last_scoring: dict | None = None  # the last round_scored event, with that round's hands
    result_recorded: bool = False  # a game_ended event has been applied
    # The round's last move (``turns.last_move_of``), until the next round or a take-back.
    last_move: dict | None = None

    @property
    def seat_to_move(self) -> int | None:
        if self.phase not in (PLACING, BUILDING):
            return None
        return (self.first_seat + self.turn) % self.seat_count

    @property
    def needs_deal(self) -> bool:
        return self.phase == AWAITING_DEAL

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def tracks_built(self) -> int:
        return len(self.built)

    def copy(self) -> GameState:
        """A copy whose containers can be changed without touching this state."""
        return GameState(
            board=self.board,
            options=self.options,
            seat_count=self.seat_count,
            scores=list(self.scores),
            game_ends_at_score=self.game_ends_at_score,
            version=self.version,
            round=self.round,
            first_seat=self.first_seat,
            phase=self.phase,
            turn=self.turn,
            hands=list(self.hands),
            starts=list(self.starts),
            built=dict(self.built),
            supply_left=self.supply_left,
            exclusive_left=list(self.exclusive_left),
            joined=list(self.joined),
            winners=list(self.winners),
            last_scoring=self.last_scoring,
            result_recorded=self.result_recorded,
            last_move=self.last_move,
        )

    def start_point(self, seat: int) -> int | None:
        return self.starts[seat] if self.starts else None

    def terminals(self, seat: int) -> list[int]:
        """The points that must be joined for ``seat``: its cities, and under the stricter
        reading its start marker too."""
        board = self.board
        points = [board.city_point(name) for name in self.hands[seat]]
        start = self.start_point(seat)
        if self.options.cities_must_join_start and start is not None:
            points.append(start)
        return points
