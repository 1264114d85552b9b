"""Cached states (games.derived.snapshots) are derived from the log and can never be stale: their
key names one log, and the write path reuses the state it built. A process keeps them as
objects, shared by its requests: nothing that reads them changes them."""

import copy

import pytest
from django.core import mail

from games import rules, services
from games.derived import snapshots
from games.derived.projection import log_digest
from games.links import seat_path
from games.models import Game
from games.services import autoplay
from notifications import outbox
from notifications.models import Message
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


def never_read_the_log(monkeypatch):
    monkeypatch.setattr(snapshots.GameLog, "read", lambda game: pytest.fail("read the log"))


def test_the_write_path_caches_the_state_it_built_and_it_is_the_logs(monkeypatch):
    game = GameFactory()
    for _ in range(5):
        game = play_turn(game)
    with monkeypatch.context() as patched:
        never_read_the_log(patched)  # stored by the move itself: the next page replays nothing
        cached = snapshots.current(game)
    assert_same(cached, rebuilt(game))
    assert game.log_digest == log_digest(game.engine_events())


def test_a_process_keeps_only_the_snapshots_it_used_last(monkeypatch):
    monkeypatch.setattr(snapshots, "KEPT", 2)
    games = [GameFactory() for _ in range(3)]  # each game's current snapshot stored
    snapshots.current(games[0])  # used again: now the last used
    snapshots.store(snapshots.EMPTY.then(games[2].engine_events()[:1]))  # drops games[1]'s
    with monkeypatch.context() as patched:
        never_read_the_log(patched)
        assert_same(snapshots.current(games[0]), rebuilt(games[0]))
    read = []
    monkeypatch.setattr(snapshots.GameLog, "read", lambda game: read.append(game.pk) or log(game))
    assert_same(snapshots.current(games[1]), rebuilt(games[1]))
    assert read == [games[1].pk]


def log(game: Game) -> snapshots.GameLog:
    return snapshots.GameLog(game.engine_events())


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
    snapshots.forget_all()
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
    assert game.version - 1 not in starts
    snapshots.forget_all()
    # Rebuilt, keeping a snapshot at each round start, up to the event before the last.
    snapshots.GameLog.read(game).snapshot(game.version - 1)
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


def test_pages_moves_bots_and_emails_leave_the_kept_snapshots_as_they_were(client):
    # Every snapshot of a game in round 2 is kept, and a copy of each taken; then every
    # seat opens all it can, a move and a refused move are posted, a bot plays, and the
    # emails are built. A reader that changed a state it was handed would change it for
    # every later request of the process: each must still equal its copy.
    game = simulated_game(seats=3, seed=1, until=40)
    starts = [e["seq"] for e in game.engine_events() if e["type"] == "round_started"]
    assert len(starts) >= 2
    digests = snapshots.GameLog.read(game).digests
    kept = [snapshots.at(game, n, digests[n]) for n in range(1, game.version + 1)]
    board = kept[0].state.board
    copies = copy.deepcopy(kept, memo={id(board): board})  # a board is never copied

    for seat in game.seats.all():
        path = seat_path(seat)
        for page in ("", "history/", f"history/?move={starts[-1]}", "record.json"):
            assert client.get(path + page).status_code == 200
    mover = game.seats.get(position=game.seat_to_move)
    state = snapshots.current(game).state
    assert client.post(seat_path(mover), {"version": game.version, "line1": 0}).status_code == 400
    line = state.board.line_id(rules.legal_lines(state, mover.position)[0])
    form = {"version": game.version, "line1": line}
    assert client.post(seat_path(mover), form).status_code == 302
    game.refresh_from_db()
    for level in ("", "greedy"):  # the strong bot (the one that covers a timeout), the greedy
        bot = game.seats.get(position=game.seat_to_move)
        bot.bot_level = level
        game = autoplay.play_turn(game, bot, game.version)
        assert game is not None
    for message in Message.objects.filter(status=Message.Status.PENDING):
        outbox.deliver(message.pk, now=message.next_attempt_at)
    assert mail.outbox

    for one, other in zip(kept, copies, strict=True):
        assert_same(one, other)  # the whole state: its last scoring, hands, track, ...
