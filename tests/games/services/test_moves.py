from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from games import rules
from games.bots import greedy_move
from games.derived import snapshots
from games.models import Event, Game
from games.services import (
    GameMovedOn,
    SeatSpec,
    create_game,
    load_state,
    start_game,
    submit_move,
)
from games.signals import events_appended
from notifications.models import Message
from tests.conftest import play_turn
from tests.factories import GameFactory, UserFactory

pytestmark = pytest.mark.django_db


def seqs(game):
    return list(game.events.values_list("seq", flat=True))


def test_create_game_seats_the_players_in_order_and_records_game_created():
    user = UserFactory()
    game = create_game(
        "transeuropa",
        {"exclusive_tracks": 3},
        [("Ada", "ada@example.com"), SeatSpec("Grace", "grace@example.com", user=user)],
        created_by=user,
        time_per_move=timedelta(days=2),
    )
    game.refresh_from_db()
    assert [(s.position, s.name, s.user) for s in game.seats.all()] == [
        (0, "Ada", None),
        (1, "Grace", user),
    ]
    assert game.options == {"exclusive_tracks": 3, "cities_must_join_start": False}
    first = game.events.get()
    assert (first.seq, first.type) == (1, "game_created")
    assert first.data["board"] == "transeuropa"
    assert first.data["seats"] == 2
    assert (game.status, game.version, game.round, game.seat_to_move) == ("setup", 1, 0, None)
    # Nobody is to move before the deal, so no clock runs.
    assert game.deadline is None


@pytest.mark.parametrize(
    ("board", "players"),
    [("monopoly", [("A", ""), ("B", "")]), ("transamerica", [("Alone", "")])],
)
def test_create_game_refuses_a_bad_game_and_writes_nothing(board, players):
    with pytest.raises(ValueError):
        create_game(board, None, players)
    assert not Game.objects.exists()


def test_start_game_deals_round_one():
    game = GameFactory(started=False, time_per_move=timedelta(hours=12))
    game = start_game(game)
    game.refresh_from_db()
    deal = game.events.get(seq=2)
    assert deal.type == "round_started"
    assert deal.data["round"] == 1
    assert [len(hand) for hand in deal.data["hands"]] == [5, 5, 5]
    assert (game.status, game.round, game.seat_to_move, game.version) == ("active", 1, 0, 2)
    assert game.deadline == deal.created_at + timedelta(hours=12)


def test_a_game_starts_only_once():
    game = GameFactory()
    with pytest.raises(GameMovedOn):
        start_game(game)
    assert seqs(game) == [1, 2]


def test_submit_move_appends_the_decided_event_and_moves_the_turn_on():
    game = GameFactory()
    game = play_turn(game)
    game.refresh_from_db()
    assert seqs(game) == [1, 2, 3]
    placed = game.events.get(seq=3)
    assert placed.type == "start_placed"
    assert placed.data["seat"] == 0
    assert (game.version, game.seat_to_move) == (3, 1)


def test_a_stale_version_is_refused_and_changes_nothing():
    game = GameFactory()
    seen = game.version
    play_turn(game)
    state = load_state(game)
    seat = game.seats.get(position=state.seat_to_move)
    with pytest.raises(GameMovedOn, match="moved on"):
        submit_move(game, seat, greedy_move(state, seat.position), seen)
    assert seqs(game) == [1, 2, 3]


def test_an_append_that_clashes_on_seq_is_reported_as_moved_on():
    # A writer that skipped the lock got seq 3 in first; the unique constraint is the
    # backstop.
    game = GameFactory()
    Event.objects.create(game=game, seq=3, type="turn_timed_out", data={"seat": 0})
    state = load_state(game)
    with pytest.raises(GameMovedOn):
        submit_move(game, game.seats.get(position=0), greedy_move(state, 0), 2)
    assert seqs(game) == [1, 2, 3]
    assert Game.objects.get(pk=game.pk).version == 2


def test_an_illegal_move_raises_the_engines_error_and_changes_nothing():
    game = GameFactory()
    with pytest.raises(rules.IllegalMove):
        submit_move(game, game.seats.get(position=1), rules.PlaceStart((1, 1)), game.version)
    with pytest.raises(rules.IllegalMove):
        submit_move(game, game.seats.get(position=0), rules.PlaceStart((-5, 99)), game.version)
    assert seats_unchanged(game)


def seats_unchanged(game):
    game.refresh_from_db()
    return seqs(game) == [1, 2] and game.version == 2 and game.seat_to_move == 0


def test_a_seat_of_another_game_is_refused():
    game, other = GameFactory(), GameFactory()
    with pytest.raises(ValueError):
        submit_move(game, other.seats.get(position=0), rules.PlaceStart((1, 1)), game.version)


def test_events_appended_is_sent_only_after_commit(django_capture_on_commit_callbacks):
    game = GameFactory()
    received = []

    def receiver(sender, game, events, **kwargs):
        received.append((game.version, [e.seq for e in events]))

    events_appended.connect(receiver)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            play_turn(game)
            assert received == []
        assert received == [(3, [3])]

        # A move whose transaction rolls back never reaches the receivers.
        with (
            django_capture_on_commit_callbacks(execute=True),
            pytest.raises(RuntimeError),
            transaction.atomic(),
        ):
            play_turn(Game.objects.get(pk=game.pk))
            raise RuntimeError("rolled back")
        assert received == [(3, [3])]
        assert seqs(game) == [1, 2, 3]
    finally:
        events_appended.disconnect(receiver)


@pytest.mark.django_db(transaction=True)
def test_a_move_outside_a_transaction_tells_the_receivers_once_it_and_its_emails_are_in():
    game = GameFactory()
    received = []

    def receiver(sender, game, events, written, **kwargs):
        # Read afresh: what the receivers hear of is committed.
        version = Game.objects.get(pk=game.pk).version
        emails = list(Message.objects.filter(pk__in=[m.pk for m in written]))
        received.append((version, [e.seq for e in events], emails))

    events_appended.connect(receiver)
    try:
        play_turn(game)
    finally:
        events_appended.disconnect(receiver)
    [(version, seqs_appended, emails)] = received
    assert (version, seqs_appended) == (3, [3])
    [email] = emails
    assert (email.kind, email.event, email.game_id) == ("your_turn", "v3", game.pk)


def test_a_whole_game_deals_each_round_by_itself_and_ends():
    game = GameFactory(time_per_move=timedelta(days=1))
    rounds_seen = {1}
    while game.status != Game.Status.FINISHED:
        game = play_turn(game)
        rounds_seen.add(game.round)
        if game.status == Game.Status.ACTIVE:
            assert game.deadline is not None
    game.refresh_from_db()
    types = list(game.events.values_list("type", flat=True))
    assert seqs(game) == list(range(1, len(types) + 1))
    # Every scored round but the last is followed at once by the next deal.
    for n, kind in enumerate(types[:-1]):
        if kind == "round_scored" and types[n + 1] != "game_ended":
            assert types[n + 1] == "round_started"
    assert types.count("round_started") == len(rounds_seen) == game.round
    state = load_state(game)
    assert state.is_over
    assert game.scores == state.scores
    assert (game.seat_to_move, game.deadline) == (None, None)
    assert game.finished_at == game.events.last().created_at
    assert game.version == len(types)

    with pytest.raises(rules.IllegalMove):
        submit_move(game, game.seats.get(position=0), rules.PlaceStart((1, 1)), game.version)


def test_a_move_decides_on_the_callers_snapshot_without_reading_the_log():
    game = GameFactory()
    before = snapshots.current(game)
    snapshots.forget_all()  # nothing kept: any other snapshot would be rebuilt from the log
    seat = game.seats.get(position=before.state.seat_to_move)
    move = greedy_move(before.state, seat.position)
    with CaptureQueriesContext(connection) as queries:
        submit_move(game, seat, move, game.version, before=before)
    assert not [q for q in queries if q["sql"].startswith("SELECT") and "games_event" in q["sql"]]
    assert seqs(game) == [1, 2, 3]


def test_a_move_ignores_a_snapshot_of_another_version():
    game = GameFactory()
    old = snapshots.current(game)
    game = play_turn(game)
    state = load_state(game)
    seat = game.seats.get(position=state.seat_to_move)
    # Decided on the old snapshot, this move would be refused: it is not this seat's turn there.
    assert old.state.seat_to_move != seat.position
    submit_move(game, seat, greedy_move(state, seat.position), game.version, before=old)
    assert seqs(game) == [1, 2, 3, 4]
    assert Event.objects.get(game=game, seq=4).data["seat"] == seat.position
