import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import ProtectedError

from games.models import AppendOnlyError, Event
from tests.factories import GameFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def event():
    return GameFactory().events.get(seq=1)


def test_an_event_refuses_to_be_saved_again(event):
    event.data = {"board": "transeuropa"}
    with pytest.raises(AppendOnlyError):
        event.save()
    assert Event.objects.get(pk=event.pk).data["board"] == "transamerica"


def test_an_event_refuses_to_be_deleted(event):
    with pytest.raises(AppendOnlyError):
        event.delete()
    assert Event.objects.filter(pk=event.pk).exists()


def test_event_querysets_refuse_update_delete_and_bulk_update(event):
    with pytest.raises(AppendOnlyError):
        Event.objects.filter(pk=event.pk).update(type="forged")
    with pytest.raises(AppendOnlyError):
        Event.objects.filter(pk=event.pk).delete()
    event.type = "forged"
    with pytest.raises(AppendOnlyError):
        Event.objects.bulk_update([event], ["type"])
    assert Event.objects.get(pk=event.pk).type == "game_created"


def test_an_event_with_a_taken_primary_key_is_not_turned_into_an_update(event):
    copy = Event(pk=event.pk, game=event.game, seq=99, type="forged")
    with pytest.raises(IntegrityError), transaction.atomic():
        copy.save()
    assert Event.objects.get(pk=event.pk).type == "game_created"


def test_two_events_of_a_game_cannot_share_a_seq(event):
    with pytest.raises(IntegrityError), transaction.atomic():
        Event.objects.create(game=event.game, seq=1, type="forged")


def test_a_game_with_events_cannot_be_deleted(event):
    with pytest.raises(ProtectedError):
        event.game.delete()


def test_events_round_trip_to_the_engine_form(event):
    engine_event = {"type": "start_placed", "seq": 7, "seat": 1, "point": [3, 4]}
    row = Event.from_engine(event.game, 7, engine_event)
    assert (row.type, row.seq, row.data) == ("start_placed", 7, {"seat": 1, "point": [3, 4]})
    assert row.as_engine_event() == engine_event


def test_a_games_log_is_returned_in_seq_order():
    game = GameFactory()
    events = game.engine_events()
    assert [e["seq"] for e in events] == [1, 2]
    assert [e["type"] for e in events] == ["game_created", "round_started"]


@pytest.mark.postgres
@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE games_event SET type = 'forged' WHERE id = %s",
        "DELETE FROM games_event WHERE id = %s",
    ],
)
def test_the_database_refuses_raw_changes_to_events(event, sql):
    with (
        pytest.raises(DatabaseError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql, [event.pk])
    assert Event.objects.get(pk=event.pk).type == "game_created"
