from datetime import time, timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from games import rules
from games.bots import greedy_move
from games.derived import snapshots
from games.derived.projection import sleep_of
from games.derived.sleep import run_clock
from games.models import Event, Game
from games.services import (
    GameMovedOn,
    MoveRequest,
    SeatSpec,
    clock,
    create_game,
    load_state,
    make_move,
    start_game,
    submit_move,
)
from games.services.event_log import seats_at_table
from games.signals import events_appended
from notifications.models import Message
from tests.conftest import play_turn
from tests.factories import GameFactory, UserFactory, timed_game

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
    request = MoveRequest(game, seat, seats_at_table(game), before)
    with CaptureQueriesContext(connection) as queries:
        make_move(request, move)
    assert not [q for q in queries if q["sql"].startswith("SELECT") and "games_event" in q["sql"]]
    assert seqs(game) == [1, 2, 3]


def test_a_move_request_refuses_a_snapshot_of_another_version():
    game = GameFactory()
    old = snapshots.current(game)
    game = play_turn(game)
    seat = game.seats.get(position=game.seat_to_move)
    with pytest.raises(ValueError, match="version"):
        MoveRequest(game, seat, seats_at_table(game), old)
    with pytest.raises(ValueError, match="belong"):
        MoveRequest(
            game, GameFactory().seats.first(), seats_at_table(game), snapshots.current(game)
        )
    assert seqs(game) == [1, 2, 3]


def test_a_move_in_a_timed_game_reads_no_clock_event_yet_its_deadline_counts_them():
    # The snapshot carries the log's clock events: the deadline of a timed game (quiet
    # hours, vacations) is worked out without reading the log, and agrees with a rebuild.
    game = timed_game()
    nxt = game.seats.get(position=(game.seat_to_move + 1) % 3)
    clock.set_quiet_hours(nxt, "Asia/Tokyo", time(1, 0), time(13, 0))
    game.refresh_from_db()
    seat = game.seats.get(position=game.seat_to_move)
    request = MoveRequest(game, seat, seats_at_table(game), snapshots.current(game))
    with CaptureQueriesContext(connection) as queries:
        moved = make_move(request, greedy_move(request.before.state, seat.position))
    reads = [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith("SELECT")]
    assert not [sql for sql in reads if "games_event" in sql]
    assert moved.seat_to_move == nxt.position
    # As the log read from the database gives it: the player's quiet hours left out.
    rest = sleep_of(moved, nxt.position, upto=moved.version)
    assert rest.zone == "Asia/Tokyo" and rest.quiet == (time(1, 0), time(13, 0))
    started = moved.events.order_by("-seq").first().created_at
    assert moved.deadline == run_clock(started, moved.time_per_move, rest)
    assert moved.deadline > started + moved.time_per_move
    assert "0 game(s) differ." in call_command_output("rebuild_projections", "--check")


def call_command_output(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()
