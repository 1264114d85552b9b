"""The replay page's model: a game's log as frames one viewer may step through, who may
see a game's history, and its public record.

Hidden information: every hand shown here is masked by the engine's own rule
(``rules.hands_visible_to``, the rule ``rules.make_record`` follows too), so a replay
never shows more than the record that viewer may download; a test holds the two to the
same hands.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import cached_property

from django.http import HttpRequest
from django.middleware.csrf import get_token
from django.template.loader import render_to_string

from games import rules
from games.derived import snapshots
from games.models import Game, Seat
from games.pages import page_cache, talk_panel
from games.pages.drawing import board_svg, last_turn, render_svg
from games.words.city_names import city_names
from games.words.narration import describe


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
    while a round runs, every hand but the viewer's is hidden. A finished game's record
    marks the turns a build plan played (``played_by``)."""
    made = rules.make_record(game.engine_events(), game.seat_names(), viewer=viewer)
    if game.status == Game.Status.FINISHED:
        mark_played_by(made["events"], set(game.plan_turns.values_list("seq", flat=True)))
    return made


def mark_played_by(events: list[dict], by_plan: set[int]) -> None:
    """Mark each move event a build plan played (``by_plan``: their seqs) with
    ``"played_by": "plan"`` (a bot's move for a person says ``"bot"`` in the log itself).
    Readers of records ignore the key; a running game's record never marks a plan's move
    (it would tell when a plan holds)."""
    for event in events:
        if event["type"] in rules.MOVE_EVENTS and event.get("seq") in by_plan:
            event.setdefault("played_by", "plan")


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
                "hand": city_names(self.hands[position]) if position < len(self.hands) else None,
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
        self.log = snapshots.GameLog.read(game)
        self.events = self.log.events
        latest = self.log.snapshot(len(self.events)).state
        # round -> hands as this viewer may see them (None for a hidden hand): every round
        # before the latest is scored; the latest as the engine shows it to the viewer.
        self.hands = {
            event["round"]: event["hands"]
            for event in self.events
            if event["type"] == rules.ROUND_STARTED
        }
        if latest.round in self.hands:
            visible = rules.hands_visible_to(latest, viewer)
            self.hands[latest.round] = [
                hand if visible[seat] is not None else None
                for seat, hand in enumerate(self.hands[latest.round])
            ]

    @cached_property
    def record(self) -> dict:
        """The game record (pbem-game-record/1) as this viewer may download it."""
        return rules.make_record(self.events, self.names, viewer=self.viewer)

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
        state = self.log.snapshot(seq).state
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

    def moves(self) -> list[tuple[int, str]]:
        """Every event of the log in words, by number: the replay's list of moves, each a
        link to the board after it. Words as the frames say them (nobody's hidden cities)."""
        out = []
        state = None
        for seq, event in enumerate(self.events, 1):
            state = rules.replay([event]) if state is None else rules.apply(state, event)
            out.append((seq, describe(event, state, self.names)))
        return out

    def scored_rounds(self) -> list[ScoredRound]:
        """Every scored round, the first first."""
        out = []
        for event in self.events:
            if event["type"] != rules.ROUND_SCORED:
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
                            cities=city_names(hands[position] or []),
                            connected=position in connected,
                            loss=event["losses"][position],
                            score=event["scores"][position],
                        )
                        for position, name in enumerate(self.names)
                    ],
                )
            )
        return out


@dataclass(frozen=True)
class ReplayPage:
    """What the replay part of the page shows besides the log: plain values only, so that
    it can be part of the cache key of its rendering."""

    title: str
    status: str
    finished_at: datetime | None
    viewer: int | None
    seq: int | None  # None for the latest
    error: str
    base: str  # the replay's own address, for its links to each move
    record_url: str
    board_url: str


def replay_html(
    request: HttpRequest,
    game: Game,
    page: ReplayPage,
    talk_seat: Seat | None = None,
    talk_token: str = "",
) -> bytes:
    """The whole replay page (games/replay.html) as UTF-8, rendered once per version and
    ``page`` and cached (games.pages.page_cache.page); never cached for a page that reports an
    error. With ``talk_seat`` (the page reached through that seat's link, ``talk_token``),
    the players' table talk as that seat sees it, read afresh for each request."""

    def render(holes: page_cache.Holes) -> str:
        moves = Replay(game, page.viewer)
        frame = moves.frame(page.seq)
        svg = board_svg(
            frame.state,
            page.viewer,
            highlight=last_turn(frame.state, frame.events),
            seat_names=frame.names,
        )
        context = {
            "title": page.title,
            "status": page.status,
            "finished_at": page.finished_at,
            "frame": frame,
            "svg": render_svg(svg, holes.layer),
            "scored_rounds": moves.scored_rounds(),
            "moves": moves.moves(),
            "base": page.base,
            "record_url": page.record_url,
            "board_url": page.board_url,
            "error": page.error,
        }
        outer = {
            "game": game,
            "main": render_to_string("games/_replay_main.html", context),
            "talk": holes.insert("talk") if talk_seat is not None else "",
            "csrf_token": holes.csrf_token,
        }
        return render_to_string("games/replay.html", outer, request)

    inputs = (snapshots.key_for(game.version, game.log_digest), page, talk_seat is not None)
    fresh = bool(page.error) or not game.log_digest
    # One token for the page's forms and the panel's: each get_token() masks it anew.
    csrf_token = get_token(request)
    inserts = {}
    if talk_seat is not None:
        inserts["talk"] = talk_panel.panel(
            request, talk_seat, talk_token, readonly=True, csrf_token=csrf_token
        )
    return page_cache.page(
        request, "replay", inputs, render, fresh=fresh, csrf_token=csrf_token, **inserts
    )
