"""The replay page's model: a game's log as frames one viewer may step through, who may
see a game's history, and its public record.

Every hand shown is masked by the engine's own rule (``rules.hands_visible_to``, which
``rules.make_record`` follows too), so a replay never shows more than the record that
viewer may download.
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
    """Whether a viewer holding ``seat`` may see ``game``'s history: finished games are
    public, others only to their players."""
    if game.status == Game.Status.FINISHED:
        return True
    return seat is not None and seat.game_id == game.pk


def record(game: Game, viewer: int | None = None) -> dict:
    """The public game record (pbem-game-record/1) of ``game`` as ``viewer`` may see it."""
    events = game.engine_events()
    if game.status == Game.Status.FINISHED:
        # By the log's own numbers, before taken-back turns are left out and renumbered.
        mark_played_by(events, set(game.plan_turns.values_list("seq", flat=True)))
    return rules.make_record(events, game.seat_names(), viewer=viewer)


def mark_played_by(events: list[dict], by_plan: set[int]) -> None:
    """Mark each move a build plan played (``by_plan``: seqs) with ``"played_by": "plan"``;
    only for finished games, since it would tell the others when a plan holds."""
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
    """A game's log, ready to be stepped through as ``viewer`` (None: the public) sees it."""

    def __init__(self, game: Game, viewer: int | None = None) -> None:
        self.game = game
        self.viewer = viewer
        self.names = game.seat_names()
        self.log = snapshots.GameLog.read(game)
        kept = rules.kept_events(self.log.events)
        if len(kept) != len(self.log.events):
            # As in the record: the replay steps through the record's log.
            self.log = snapshots.GameLog(kept)
        self.events = self.log.events
        latest = self.log.snapshot(len(self.events)).state
        # round -> hands as this viewer may see them (None: hidden); earlier rounds are scored.
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
        """The frame after event ``seq`` (None: the latest); ValueError outside the log."""
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
        """Every event of the log in words, by number."""
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
    """What the replay part of the page shows besides the log: plain values, for the cache key."""

    title: str
    status: str
    finished_at: datetime | None
    viewer: int | None
    seq: int | None  # None for the latest
    error: str
    base: str  # the replay's own address, for its links to each move
    record_url: str
    board_url: str
    # "Play again with the same players", for a player who may: the page its button is on.
    again_url: str = ""
    played_again: bool = False  # the table's next game is set up already


def replay_html(
    request: HttpRequest,
    game: Game,
    page: ReplayPage,
    talk_seat: Seat | None = None,
    talk_token: str = "",
) -> bytes:
    """The whole replay page as UTF-8, cached unless it reports an error; with ``talk_seat``,
    that seat's table talk, read afresh for each request."""

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
            "again_url": page.again_url,
            "played_again": page.played_again,
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


def frame_html(request: HttpRequest, game: Game, viewer: int | None, seq: int, base: str) -> str:
    """Just what changes when the replay steps to move ``seq``: the script swaps it in, so a
    step loads neither the page around it nor the list of every move."""

    def render(holes: page_cache.Holes) -> dict[str, str]:
        frame = Replay(game, viewer).frame(seq)
        svg = board_svg(
            frame.state,
            viewer,
            highlight=last_turn(frame.state, frame.events),
            seat_names=frame.names,
        )
        # The static layers are the same at every step: the page keeps its own.
        context = {"frame": frame, "svg": render_svg(svg, no_layer), "base": base}
        return {"frame": render_to_string("games/_replay_frame.html", context)}

    inputs = (snapshots.key_for(game.version, game.log_digest), viewer, seq, base)
    return _fragment("replay-frame", inputs, render, fresh=not game.log_digest).fill(
        "frame", request
    )


def move_list_html(request: HttpRequest, game: Game, viewer: int | None, base: str) -> str:
    """Every move of ``game`` in words as ``viewer`` may see them, each a link under ``base``."""

    def render(holes: page_cache.Holes) -> dict[str, str]:
        context = {"moves": Replay(game, viewer).moves(), "base": base, "current": None}
        return {"list": render_to_string("games/_move_list.html", context)}

    inputs = (snapshots.key_for(game.version, game.log_digest), viewer, base)
    return _fragment("move-list", inputs, render, fresh=not game.log_digest).fill("list", request)


def no_layer(board: str, name: str) -> str:
    """No static layer: for a step of the replay."""

    return ""


def _fragment(kind: str, inputs: tuple, render, *, fresh: bool) -> page_cache.Fragment:
    """``page_cache.cached``, or rendered afresh when ``fresh`` (a log no key names)."""
    if fresh:
        holes = page_cache.Holes()
        return page_cache.Fragment(
            {name: holes.split(text) for name, text in render(holes).items()}
        )
    return page_cache.cached(kind, inputs, render)
