"""Cached states (games.snapshots) are derived from the log and can never be stale: their
key names one log, and the write path reuses the state it built."""

import pytest
from django.core.cache import cache

from games import rules, services, snapshots
from games.models import Game
from games.projection import log_digest
from tests.conftest import play_turn
from tests.factories import GameFactory, simulated_game

pytestmark = pytest.mark.django_db


def rebuilt(game: Game) -> snapshots.Snapshot:
    """The snapshot at the game's version, replayed from its rows with no cache at all."""
    return snapshots.EMPTY.then(game.engine_events())


def assert_same(one: snapshots.Snapshot, other: snapshots.Snapshot) -> None:
    assert (one.version, one.digest) == (other.version, other.digest)
    assert one.state == other.state
    assert one.round_events == other.round_events
    assert one.runs == other.runs


def test_the_write_path_caches_the_state_it_built_and_it_is_the_logs():
    game = GameFactory()
    for _ in range(5):
        game = play_turn(game)
    cached = cache.get(snapshots.key_for(game.version, game.log_digest))
    assert cached is not None  # stored by the move itself: the next page replays nothing
    assert_same(snapshots.current(game), rebuilt(game))
    assert game.log_digest == log_digest(game.engine_events())


def test_a_cached_state_keeps_its_board_by_name_not_a_copy():
    game = play_turn(GameFactory())
    cached = snapshots.current(game)  # from the cache, which holds bytes
    assert cache.get(snapshots.key_for(game.version, game.log_digest)) is not None
    assert cached.state.board is rules.get_board(game.board)
    assert len(cache.get(snapshots.key_for(game.version, game.log_digest))) < 4_000


def test_a_move_reuses_the_cached_state_and_never_reads_the_log(monkeypatch):
    game = play_turn(GameFactory())
    monkeypatch.setattr(snapshots.GameLog, "read", lambda game: pytest.fail("read the log"))
    monkeypatch.setattr(rules, "replay", lambda events: pytest.fail("replayed the log"))
    game = play_turn(game)
    assert game.version > 0


def test_a_whole_game_through_the_write_path_matches_its_replay():
    # Every round dealt and scored by the write path, each on the state it folded.
    game = simulated_game(seats=3, seed=4)
    assert game.status == Game.Status.FINISHED
    assert_same(snapshots.current(game), rebuilt(game))
    cache.clear()
    assert_same(snapshots.current(game), rebuilt(game))


def test_two_logs_of_the_same_length_have_different_keys():
    one, other = GameFactory(), GameFactory()  # dealt at random: different hands
    assert one.version == other.version
    assert one.log_digest != other.log_digest
    assert snapshots.current(one).state.hands != snapshots.current(other).state.hands


def test_a_restored_older_log_never_gets_the_newer_state():
    # A database restored from an older backup: the log is back at an earlier version,
    # and the moves since are played differently from the lost timeline's, whose
    # snapshots are still in the cache. None of them is ever served for the new one.
    game = play_turn(GameFactory())
    backup = game.engine_events()
    lost = play_turn(play_turn(game))
    lost_state = snapshots.current(lost).state

    restored = services.create_game("transamerica", None, [("A", "a@x.org")] * 3)
    restored = services.append_events(restored, backup[1:])
    assert restored.log_digest == game.log_digest  # the same log: the same key, rightly
    state = services.load_state(restored)
    seat = restored.seats.get(position=state.seat_to_move)
    elsewhere = next(
        point
        for point in rules.legal_start_points(state)
        if state.board.point_index[point] != lost_state.starts[seat.position]
    )
    restored = services.submit_move(restored, seat, rules.PlaceStart(elsewhere), restored.version)
    restored = play_turn(restored)

    assert restored.version == lost.version
    assert restored.log_digest != lost.log_digest
    assert snapshots.current(restored).state != lost_state
    assert_same(snapshots.current(restored), rebuilt(restored))


def test_a_stale_or_foreign_entry_under_a_key_is_never_found_by_another_log():
    game = play_turn(GameFactory())
    # Whatever sits in the cache for another digest of the same version is not read.
    other = play_turn(GameFactory())
    snapshots.store(snapshots.current(other))
    assert snapshots.current(game).digest == game.log_digest
    assert_same(snapshots.current(game), rebuilt(game))


def test_a_new_engine_never_reads_an_older_engines_states(monkeypatch):
    game = play_turn(GameFactory())
    old_key = snapshots.key_for(game.version, game.log_digest)
    snapshots.engine_stamp.cache_clear()
    monkeypatch.setattr(snapshots, "source_digest", lambda root, suffixes: "another-release")
    try:
        assert snapshots.key_for(game.version, game.log_digest) != old_key
    finally:
        snapshots.engine_stamp.cache_clear()


def test_a_miss_replays_from_the_latest_round_start_still_cached(monkeypatch):
    game = simulated_game(seats=3, seed=2, until=60)
    starts = [e["seq"] for e in game.engine_events() if e["type"] == "round_started"]
    assert len(starts) >= 2
    expected = rebuilt(game)
    cache.clear()
    snapshots.current(game)  # rebuilds, keeping a snapshot at each round start
    cache.delete(snapshots.key_for(game.version, game.log_digest))
    folded = []
    then = snapshots.Snapshot.then

    def counting(self, events):
        events = list(events)
        folded.extend(event["seq"] for event in events)
        return then(self, events)

    monkeypatch.setattr(snapshots.Snapshot, "then", counting)
    assert_same(snapshots.current(game), expected)
    assert folded == list(range(starts[-1] + 1, game.version + 1))


def test_the_count_on_record_takes_in_the_turn_that_timed_out_until_it_is_played():
    # The seat's row holds this count (games.services writes it only when it changes).
    game = GameFactory()
    start = snapshots.current(game)
    late = start.state.seat_to_move
    timed_out = start.then([{"type": rules.TURN_TIMED_OUT, "seat": late, "in_a_row": 1}])
    assert (timed_out.timeouts_in_a_row(late), timed_out.timeouts_on_record(late)) == (0, 1)
    point = rules.legal_start_points(timed_out.state)[0]
    by_bot = timed_out.then(rules.decide(timed_out.state, late, rules.PlaceStart(point)))
    assert (by_bot.timeouts_in_a_row(late), by_bot.timeouts_on_record(late)) == (1, 1)
    assert start.timeouts_on_record(late) == 0
    assert start.timeouts_on_record(len(start.runs)) == 0  # no such seat
