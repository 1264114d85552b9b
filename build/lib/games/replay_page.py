"""The replay page's model: a game's log as frames one viewer may step through, who may
see a game's history, and its public record.

Hidden information: every hand shown here comes from ``rules.make_record`` for the
viewer, so a replay can never show more than the record that viewer may download.
"""

from __future__ import annotations

from dataclasses import dataclass

from games import rules
from games.models import Game, Seat
from games.narration import describe


def viewer_seat(game: Game, user) -> Seat | None:
    """The seat ``user`` holds in ``game`` (the first, should they hold several)."""
    if user is None or not user.is_authenticated:
        return None
    return game.seats.filter(user=user).order_by("position").first()


def may_view(game: Game, seat: Seat | None) -> bool:
    """Whether a viewer holding ``seat`` (or none) may see ``game``'s history.

    Finished games are public; a game still running (or being set up) is shown only
    to its own players.
    """
    if game.status == Game.Status.FINISHED:
        return True
    return seat is not None and seat.game_id == game.pk


def record(game: Game, viewer: int | None = None) -> dict:
    """The public game record (pbem-game-record/1) of ``game`` as ``viewer`` may see it:
    while a round runs, every hand but the viewer's is hidden."""
    return rules.make_record(game.engine_events(), game.seat_names(), viewer=viewer)


@dataclass(frozen=True)
class ScoreRow:
    seat: int
    name: str
    cities: list[str]
    connected: bool
    loss: int
    score: int


@dataclass(frozen=True)
class ScoredRound:
    """One round's scoring: every seat's cities (public once scored), loss and score."""

    round: int
    seq: int  # the round_scored event, for a link to that moment of the replay
    rows: list[ScoreRow]
    game_ends_at_score: int


@dataclass(frozen=True)
class Frame:
    """The game as it stood right after event ``seq``, as one viewer may see it."""

    seq: int
    last_seq: int
    event: dict
    description: str
    state: rules.GameState
    events: list[dict]  # the log up to and including ``seq`` (for the board's highlight)
    hands: list[list[str] | None]  # the frame's round's hands; None where hidden
    names: list[str]
    viewer: int | None

    @property
    def first_seq(self) -> int:
        return 1

    @property
    def previous_seq(self) -> int | None:
        return self.seq - 1 if self.seq > 1 else None

    @property
    def next_seq(self) -> int | None:
        return self.seq + 1 if self.seq < self.last_seq else None

    @property
    def seats(self) -> list[dict]:
        """Per seat: name, score, hand (None where hidden), and whether it moves next."""
        state = self.state
        return [
            {
                "position": position,
                "name": name,
                "score": state.scores[position],
                "hand": self.hands[position] if position < len(self.hands) else None,
                "to_move": state.seat_to_move == position,
                "is_viewer": position == self.viewer,
            }
            for position, name in enumerate(self.names)
        ]


class Replay:
    """A game's log, ready to be stepped through as ``viewer`` (a seat position, or None
    for a finished game's public) may see it."""

    def __init__(self, game: Game, viewer: int | None = None) -> None:
        self.game = game
        self.viewer = viewer
        self.names = game.seat_names()
        self.events = game.engine_events()
        self.record = rules.make_record(self.events, self.names, viewer=viewer)
        # round -> hands as this viewer may see them (None for a hidden hand)
        self.hands = {
            event["round"]: event["hands"]
            for event in self.record["events"]
            if event["type"] == "round_started"
        }

    @property
    def last_seq(self) -> int:
        return len(self.events)

    def frame(self, seq: int | None = None) -> Frame:
        """The frame after event ``seq`` (the latest when None); raises ValueError for a
        ``seq`` outside the log."""
        last = self.last_seq
        if seq is None:
            seq = last
        if not 1 <= seq <= last:
            raise ValueError(f"this game has moves 1 to {last}")
        events = self.events[:seq]
        state = rules.replay(events)
        hands = self.hands.get(state.round, []) if state.round else []
        return Frame(
            seq=seq,
            last_seq=last,
            event=events[-1],
            description=describe(events[-1], state, self.names),
            state=state,
            events=events,
            hands=[list(hand) if hand is not None else None for hand in hands],
            names=self.names,
            viewer=self.viewer,
        )

    def scored_rounds(self) -> list[ScoredRound]:
        """Every scored round, the first first."""
        out = []
        for event in self.record["events"]:
            if event["type"] != "round_scored":
                continue
            hands = self.hands[event["round"]]
            connected = set(event["connected"])
            out.append(
                ScoredRound(
                    round=event["round"],
                    seq=event["seq"],
                    game_ends_at_score=event["game_ends_at_score"],
                    rows=[
                        ScoreRow(
                            seat=position,
                            name=name,
                            cities=list(hands[position] or []),
                            connected=position in connected,
                            loss=event["losses"][position],
                            score=event["scores"][position],
                        )
                        for position, name in enumerate(self.names)
                    ],
                )
            )
        return out
