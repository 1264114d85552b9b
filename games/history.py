"""Game history: the queries behind the dashboard and the finished-games list, who may see
a game's history, and the frames of its replay. No HTTP here: the views render what this
module returns.

Hidden information: every hand shown here comes from ``rules.make_record`` for the
viewer, so a replay can never show more than the record that viewer may download.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Prefetch, QuerySet

from games import links, rules
from games.models import Game, Seat
from games.rules.moves import format_point
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
        return rules.get_board(self.game.board).title


@dataclass(frozen=True)
class Dashboard:
    waiting_for_me: list[DashboardEntry]
    active: list[DashboardEntry]
    setup: list[DashboardEntry]
    finished: list[DashboardEntry]

    def __bool__(self) -> bool:
        return bool(self.waiting_for_me or self.active or self.setup or self.finished)


def dashboard(user) -> Dashboard:
    """``user``'s games: the ones waiting for their move first (the nearest deadline
    first), then their other active games, games still being set up, and finished games
    (the latest first)."""
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
        # Games without a deadline after those with one; then the oldest game first.
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
    return Dashboard(waiting_for_me=waiting, active=active, setup=setup, finished=finished)


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


def _name(names: list[str], seat) -> str:
    if isinstance(seat, int) and 0 <= seat < len(names):
        return names[seat]
    return "A player"


def _and(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def describe(event: dict, state: rules.GameState, names: list[str]) -> str:
    """One sentence saying what ``event`` did; ``state`` is the state right after it."""
    kind = event["type"]
    board = state.board
    if kind == "game_created":
        return f"The game is set up on the {board.title} board for {state.seat_count} players."
    if kind == "round_started":
        return (
            f"Round {event['round']} begins: each player is dealt five cities, "
            f"and {_name(names, event['first_seat'])} plays first."
        )
    if kind == "start_placed":
        point = tuple(event["point"])
        city = board.city_at.get(board.point_index.get(point, -1))
        where = f"in {city.name}" if city else f"at {format_point(point)}"
        return f"{_name(names, event['seat'])} places their start marker {where}."
    if kind == "track_built":
        count = len(event["lines"])
        coloured = len(event.get("exclusive") or ())
        what = "one track" if count == 1 else f"{count} tracks"
        note = f", {coloured} of them coloured" if coloured and count > 1 else ""
        if coloured and count == 1:
            what = "one coloured track"
        return f"{_name(names, event['seat'])} builds {what}{note}."
    if kind == "turn_passed":
        return f"{_name(names, event['seat'])} cannot build and passes."
    if kind == "round_scored":
        joined = [_name(names, seat) for seat in event["connected"]]
        who = f"{_and(joined)} joined all their cities" if joined else "the track ran out"
        scores = ", ".join(f"{_name(names, s)} {score}" for s, score in enumerate(event["scores"]))
        return f"Round {event['round']} is over: {who}. Scores: {scores}."
    if kind == "game_ended":
        won = _and([_name(names, seat) for seat in event["winners"]])
        verb = "wins" if len(event["winners"]) == 1 else "share the win"
        return f"The game is over: {won} {verb}."
    # Events the engine passes over (a timed-out turn, a bot taking a seat, ...).
    subject = f"{_name(names, event['seat'])}: " if "seat" in event else ""
    return subject + kind.replace("_", " ").capitalize() + "."
