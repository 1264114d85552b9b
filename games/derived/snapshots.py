"""A game's state at one version of its log: derived from the log, cached, never a second
truth.

Keys name the engine's code and the log's chained digest, so a stale copy can never be
served (not even after a restore reuses version numbers) and nothing is invalidated.
Each process keeps recent snapshots in memory as objects, not pickled. A miss replays
from the latest cached round start, so a long game does not re-score its past rounds.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from games import rules
from games.derived.projection import log_digest
from games.models import Event, Game

log = logging.getLogger(__name__)

# A seat's own turns, as the timeout count reads them (see Snapshot.runs).
TURN_TYPES = (rules.START_PLACED, rules.TRACK_BUILT, rules.TURN_PASSED)


def source_digest(root: Path, suffixes: Iterable[str]) -> str:
    """A digest of the files under ``root`` with these suffixes, to stamp cache keys."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.suffix in suffixes and "__pycache__" not in path.parts:
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


@cache
def engine_stamp() -> str:
    """A stamp of the engine and this module: a new release never reads an older one's states."""
    stamp = source_digest(Path(rules.__file__).parent, (".py", ".json"))
    return hashlib.sha256((stamp + Path(__file__).read_text()).encode()).hexdigest()[:16]


def key_for(version: int, digest: str) -> str:
    """The cache key of the snapshot after event ``version`` of the log with ``digest``."""
    return f"railmail:snapshot:{engine_stamp()}:{version}:{digest}"


@dataclass(frozen=True)
class Snapshot:
    """A game after event ``version`` of its log.

    ``round_events`` runs from the current round's start; ``runs`` is each seat's
    timeouts in a row and whether its turn has timed out; ``clock`` holds the whole log's
    sleep events, which a timed game's deadline needs.
    """

    version: int
    digest: str
    state: rules.GameState | None
    round_events: tuple[dict, ...] = ()
    runs: tuple[tuple[int, bool], ...] = ()
    clock: tuple[dict, ...] = ()

    @property
    def key(self) -> str:
        return key_for(self.version, self.digest)

    def timeouts_in_a_row(self, position: int) -> int:
        """How many of the seat's last turns, in a row, ended in a timeout."""
        return self.runs[position][0] if position < len(self.runs) else 0

    def timeouts_on_record(self, position: int) -> int:
        """The count the seat's row holds at this version (as record_timeout() writes it)."""
        if position >= len(self.runs):
            return 0
        count, timed_out = self.runs[position]
        return count + 1 if timed_out else count

    def then(self, events: Iterable[dict], state: rules.GameState | None = None) -> Snapshot:
        """The snapshot after ``events``, each checked by the engine unless ``state`` (from
        ``rules.play``, which decided them) is given."""
        version, digest, replayed = self.version, self.digest, self.state
        round_events, runs, clock = list(self.round_events), list(self.runs), list(self.clock)
        for event in events:
            version += 1
            # As the log will hold it (lists, not tuples), so digests match a rebuild.
            event = json.loads(json.dumps(event))
            event.setdefault("seq", version)
            if state is None:
                replayed = (
                    rules.replay([event]) if replayed is None else rules.apply(replayed, event)
                )
            digest = log_digest([event], digest)
            if event["type"] == rules.ROUND_STARTED:
                round_events = []
            round_events.append(event)
            if event["type"] in SLEEP_EVENTS:
                clock.append(event)
            runs = runs or [(0, False)] * (state or replayed).seat_count
            _count_timeouts(runs, event)
        return Snapshot(
            version, digest, state or replayed, tuple(round_events), tuple(runs), tuple(clock)
        )


SLEEP_EVENTS = (*rules.CLOCK_EVENTS, rules.QUIET_HOURS_SET)

EMPTY = Snapshot(version=0, digest="", state=None)


def _count_timeouts(runs: list[tuple[int, bool]], event: dict) -> None:
    """A move after a timeout was the bot's, so it continues the run."""
    seat = event.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(runs):
        return
    count, timed_out = runs[seat]
    if event["type"] == rules.TURN_TIMED_OUT:
        runs[seat] = (count, True)
    elif event["type"] in (rules.SEAT_TAKEN_BACK, rules.SEAT_HANDED_OVER):
        runs[seat] = (0, False)
    elif event["type"] in TURN_TYPES:
        runs[seat] = (count + 1 if timed_out else 0, False)


# --- the cache ----------------------------------------------------------------------------

KEPT = 300
_kept: OrderedDict[str, Snapshot] = OrderedDict()
_kept_lock = threading.Lock()  # a threaded server's requests share them


def store(*found: Snapshot) -> None:
    """Keep snapshots in this process's memory, not copied: readers treat them as read-only."""
    with _kept_lock:
        for snapshot in found:
            key = snapshot.key
            _kept[key] = snapshot
            _kept.move_to_end(key)
        while len(_kept) > KEPT:
            _kept.popitem(last=False)


def _fetch(keys: Sequence[str]) -> dict[str, Snapshot]:
    found = {}
    with _kept_lock:
        for key in keys:
            snapshot = _kept.get(key)
            if snapshot is not None:
                _kept.move_to_end(key)
                found[key] = snapshot
    return found


def forget_all() -> None:
    """Drop every snapshot this process keeps."""
    with _kept_lock:
        _kept.clear()


def current(game: Game) -> Snapshot:
    """The snapshot of ``game`` at the version its row (as read) says."""
    if game.log_digest:
        key = key_for(game.version, game.log_digest)
        found = _fetch([key]).get(key)
        if found is not None:
            return found
    return GameLog.read(game).snapshot(game.version)


def at(game: Game, version: int, digest: str = "") -> Snapshot:
    """The snapshot of ``game`` after event ``version`` (cached when ``digest`` names one)."""
    if digest:
        key = key_for(version, digest)
        found = _fetch([key]).get(key)
        if found is not None:
            return found
    row = Game.objects.only("version", "log_digest").get(pk=game.pk)
    return GameLog.read(row).snapshot(version)


def latest(game: Game) -> Snapshot:
    """The snapshot of ``game`` as it stands in the database now."""
    row = Game.objects.only("version", "log_digest").get(pk=game.pk)
    return current(row)


class GameLog:
    """A game's log as read from its rows, for rebuilding snapshots of any version."""

    def __init__(self, events: list[dict]) -> None:
        self.events = events
        self.digests = [""]
        for event in events:
            self.digests.append(log_digest([event], self.digests[-1]))

    @classmethod
    def read(cls, game: Game) -> GameLog:
        """The log of ``game`` up to the version its row says."""
        rows = Event.objects.filter(game_id=game.pk, seq__lte=game.version).order_by("seq")
        events = [
            {"type": kind, "seq": seq, **data}
            for seq, kind, data in rows.values_list("seq", "type", "data")
        ]
        found = cls(events)
        if game.log_digest and found.digests[-1] != game.log_digest:
            # The log is the truth; rebuild_projections repairs the row.
            log.warning("game %s: log_digest differs from its events", game.pk)
        return found

    def snapshot(self, seq: int) -> Snapshot:
        """The snapshot after event ``seq``, replayed from the latest cached round start."""
        if not 0 < seq <= len(self.events):
            raise ValueError(f"this log has events 1 to {len(self.events)}")
        starts = [
            n
            for n, event in enumerate(self.events[:seq], 1)
            if event["type"] == rules.ROUND_STARTED
        ]
        wanted = {key_for(n, self.digests[n]): n for n in [*starts, seq]}
        cached = _fetch(list(wanted))
        if cached:
            base = max(cached.values(), key=lambda s: s.version)
            if base.version == seq:
                return base
        else:
            base = EMPTY
        made = []
        snapshot = base
        for event in self.events[base.version : seq]:
            snapshot = snapshot.then([event])
            if event["type"] == rules.ROUND_STARTED and snapshot.version != seq:
                made.append(snapshot)
        store(*made, snapshot)
        return snapshot
