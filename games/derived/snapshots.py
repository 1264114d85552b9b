"""A game's state at one version of its log: derived from the log, cached, never a second
truth.

    snapshot = snapshots.current(game)    # at the version the Game row says
    snapshot.state                         # the engine's state (treat it as read-only)
    snapshot.round_events                  # the events of the round so far
    later = snapshot.then(events)          # more events, each checked by the engine

A snapshot is cached under a key made of the engine's code and the log's digest
(``games.derived.projection.log_digest``, kept on the Game row with the version): the digest is
chained over every event of the log, so a key names one log and nothing else. A stale copy
can never be served: a different log (another move, or the same version numbers reused
after a database was restored from an older backup) has another digest, hence another
key; and a new release of the engine another stamp. Entries are never invalidated: each
process keeps the ones it used last in its own memory, as objects (unpickling a state from
Django's cache and pickling the next one took a tenth of a move's time).

When the cache misses (a new process, an evicted entry), the snapshot is rebuilt from the
log: the rows are read and replayed from the latest round start still cached (a snapshot
at each round start is kept for that), so a long game does not re-score its past rounds.
The write path (games.services) folds its new events onto the snapshot it started from,
and stores the result for the pages that follow.
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
    """A digest of the files under ``root`` with these suffixes: a stamp of a release of
    that code, for cache keys."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.suffix in suffixes and "__pycache__" not in path.parts:
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


@cache
def engine_stamp() -> str:
    """The rules engine's code and board data, and this module: a new release of either
    never reads a state an older one cached (the rules or the states' layout may have
    changed)."""
    stamp = source_digest(Path(rules.__file__).parent, (".py", ".json"))
    return hashlib.sha256((stamp + Path(__file__).read_text()).encode()).hexdigest()[:16]


def key_for(version: int, digest: str) -> str:
    """The cache key of the snapshot after event ``version`` of the log with ``digest``."""
    return f"railmail:snapshot:{engine_stamp()}:{version}:{digest}"


@dataclass(frozen=True)
class Snapshot:
    """A game after event ``version`` of its log (whose digest is ``digest``).

    ``round_events``: the events (engine form, with seq) from the current round's
    ``round_started`` on; the whole log before the first round. ``runs``: per seat, how
    many of its turns in a row ended in a timeout, and whether its turn now has timed out
    (the count games.services records; see ``timeouts_in_a_row``).
    """

    version: int
    digest: str
    state: rules.GameState | None
    round_events: tuple[dict, ...] = ()
    runs: tuple[tuple[int, bool], ...] = ()

    @property
    def key(self) -> str:
        return key_for(self.version, self.digest)

    def timeouts_in_a_row(self, position: int) -> int:
        """How many of the seat's last turns, in a row, ended in a timeout."""
        return self.runs[position][0] if position < len(self.runs) else 0

    def timeouts_on_record(self, position: int) -> int:
        """The count the seat's row holds at this version: its timeouts in a row, its
        current turn's included once that has timed out (as record_timeout() writes it)."""
        if position >= len(self.runs):
            return 0
        count, timed_out = self.runs[position]
        return count + 1 if timed_out else count

    def then(self, events: Iterable[dict], state: rules.GameState | None = None) -> Snapshot:
        """The snapshot after ``events`` (engine events; their seq follows this version).

        Each event is checked by the engine, as a replay of the whole log would, unless
        ``state`` is the engine's state after them: ``rules.play`` gives it with the events
        it decided, and they need no second check."""
        version, digest, replayed = self.version, self.digest, self.state
        round_events, runs = list(self.round_events), list(self.runs)
        for event in events:
            version += 1
            # The event as the log will hold it: JSON values (lists, not tuples), with seq.
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
            runs = runs or [(0, False)] * (state or replayed).seat_count
            _count_timeouts(runs, event)
        return Snapshot(version, digest, state or replayed, tuple(round_events), tuple(runs))


# Before the first event: the snapshot every log starts from.
EMPTY = Snapshot(version=0, digest="", state=None)


def _count_timeouts(runs: list[tuple[int, bool]], event: dict) -> None:
    """Count a seat's turns that ended in a timeout, in a row: its own move after a timeout
    continues the run (a bot played it), its own move otherwise ends it, and taking the
    seat back from the bot starts afresh."""
    seat = event.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(runs):
        return
    count, timed_out = runs[seat]
    if event["type"] == rules.TURN_TIMED_OUT:
        runs[seat] = (count, True)
    elif event["type"] == rules.SEAT_TAKEN_BACK:
        runs[seat] = (0, False)
    elif event["type"] in TURN_TYPES:
        runs[seat] = (count + 1 if timed_out else 0, False)


# --- the cache ----------------------------------------------------------------------------

# How many snapshots a process keeps, the least recently used dropped first: at most about
# 60 KB each (a finished 6-player game), shared with the boards they name.
KEPT = 300
_kept: OrderedDict[str, Snapshot] = OrderedDict()
_kept_lock = threading.Lock()  # a threaded server's requests share them


def store(*found: Snapshot) -> None:
    """Keep snapshots in this process's memory under their keys, as they are: not copied,
    so whoever reads one treats it as read-only (tests/games/test_snapshots.py checks that
    every page and email leaves them as they were)."""
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
    """Drop every snapshot this process keeps (the next reads rebuild them from the log)."""
    with _kept_lock:
        _kept.clear()


def current(game: Game) -> Snapshot:
    """The snapshot of ``game`` at the version its row (as read) says: from the cache, or
    rebuilt from the log."""
    if game.log_digest:
        key = key_for(game.version, game.log_digest)
        found = _fetch([key]).get(key)
        if found is not None:
            return found
    return GameLog.read(game).snapshot(game.version)


def at(game: Game, version: int, digest: str = "") -> Snapshot:
    """The snapshot of ``game`` after event ``version``: from the cache when ``digest`` (the
    log's digest at that version, as recorded then) names a cached one, else rebuilt from
    the log as it stands now."""
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
    """A game's log as read from its rows, for rebuilding snapshots of any of its
    versions."""

    def __init__(self, events: list[dict]) -> None:
        self.events = events
        # digests[n]: the digest of the first n events.
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
            # The row and its log disagree (rebuild_projections repairs it): the log is
            # the truth, and what is built from it is cached under the log's own digest.
            log.warning("game %s: log_digest differs from its events", game.pk)
        return found

    def snapshot(self, seq: int) -> Snapshot:
        """The snapshot after event ``seq``: from the cache, or replayed from the latest
        cached snapshot at a round start before it (or from the first event)."""
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
