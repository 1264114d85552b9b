"""A claim and its rows: all written if the claim holds, nothing if not, on both databases
(one statement on PostgreSQL, the ORM elsewhere)."""

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.models.signals import post_save
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.models import Event, Game
from helpers.claims import Claim, claim_and_insert
from notifications import emails
from notifications.models import Message
from tests.factories import GameFactory

pytestmark = pytest.mark.django_db


def new_event(game, seq, kind="turn_passed"):
    return Event(game=game, seq=seq, type=kind, data={"seat": 0}, created_at=timezone.now())


def new_message(game, to, event="v1", status=Message.Status.PENDING):
    return Message(to=to, game=game, event=event, kind="your_turn", facts={"n": 1}, status=status)


def claim_title(game, version, title="claimed"):
    game.title = title
    return Claim(game, ["title"], expected={"version": version})


def test_a_claim_that_holds_writes_the_row_and_inserts_every_row_with_its_key():
    game = GameFactory()
    events = [new_event(game, game.version + 1), new_event(game, game.version + 2)]
    mails = [new_message(game, "a@example.org"), new_message(game, "b@example.org")]
    with transaction.atomic():
        assert claim_and_insert(claim_title(game, game.version), events, mails)
    assert Game.objects.get(pk=game.pk).title == "claimed"
    written = dict(Event.objects.filter(game=game).values_list("seq", "pk"))
    assert [written[e.seq] for e in events] == [e.pk for e in events]
    assert all(e.pk is not None and not e._state.adding for e in events)
    stored = dict(Message.objects.filter(game=game, event="v1").values_list("to", "pk"))
    assert {m.to: m.pk for m in mails} == stored
    assert Message.objects.get(pk=mails[0].pk).facts == {"n": 1}


def test_a_claim_that_fails_writes_nothing():
    game = GameFactory()
    version, title = game.version, game.title
    events = [new_event(game, version + 1)]
    with transaction.atomic():
        claimed = claim_and_insert(
            claim_title(game, version - 1), events, [new_message(game, "a@example.org")]
        )
    assert claimed is False
    row = Game.objects.get(pk=game.pk)
    assert (row.version, row.title) == (version, title)
    assert not Event.objects.filter(game=game, seq=version + 1).exists()
    assert not Message.objects.filter(game=game, to="a@example.org").exists()
    assert events[0].pk is None


def test_an_expected_null_is_compared_as_null():
    game = GameFactory()
    assert game.deadline is None
    with transaction.atomic():
        game.title = "no deadline"
        assert claim_and_insert(Claim(game, ["title"], expected={"deadline": None}))
        game.title = "a deadline"
        game.deadline = timezone.now()
        assert claim_and_insert(Claim(game, ["title", "deadline"], expected={"deadline": None}))
        game.title = "again"
        assert not claim_and_insert(Claim(game, ["title"], expected={"deadline": None}))
    assert Game.objects.get(pk=game.pk).title == "a deadline"


def test_a_row_written_before_is_skipped_and_the_others_are_inserted():
    game = GameFactory()
    before = Message.objects.create(to="a@example.org", game=game, event="v1", kind="your_turn")
    mails = [new_message(game, "a@example.org"), new_message(game, "b@example.org")]
    with transaction.atomic():
        assert claim_and_insert(claim_title(game, game.version), [], mails)
        # The transaction goes on.
        assert Message.objects.filter(game=game, event="v1").count() == 2
    assert mails[0].pk is None
    assert Message.objects.get(to="b@example.org", game=game).pk == mails[1].pk
    assert Message.objects.get(to="a@example.org", game=game).pk == before.pk


def test_a_duplicate_among_the_rows_raises():
    game = GameFactory()
    taken = game.version  # the seq of the game's last event
    with pytest.raises(IntegrityError), transaction.atomic():
        claim_and_insert(claim_title(game, game.version), [new_event(game, taken)])
    assert Game.objects.get(pk=game.pk).title != "claimed"


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_it_is_atomic_by_itself():
    """No caller's transaction needed, on either database: a duplicate writes nothing, not
    even the claim, and a claim that held is there with its rows."""
    game = GameFactory()
    taken = game.version  # the seq of the game's last event
    with pytest.raises(IntegrityError):
        claim_and_insert(claim_title(game, game.version), [new_event(game, taken)])
    assert Game.objects.get(pk=game.pk).title != "claimed"
    assert claim_and_insert(claim_title(game, game.version), [new_event(game, game.version + 1)])
    assert Game.objects.get(pk=game.pk).title == "claimed"
    assert Event.objects.filter(game=game, seq=game.version + 1).exists()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL writes in one")
@pytest.mark.django_db(transaction=True)
def test_on_postgresql_the_statement_is_a_transaction_of_its_own():
    game = GameFactory()
    committed = []
    with CaptureQueriesContext(connection) as queries:
        assert claim_and_insert(
            claim_title(game, game.version),
            [new_event(game, game.version + 1)],
            # Suppressed: its post_save queues no delivery, which would run at once here.
            [new_message(game, "a@example.org", status=Message.Status.SUPPRESSED)],
        )
    assert len(queries) == 1  # no BEGIN, no COMMIT
    # What waits for the commit runs now: the statement has committed.
    transaction.on_commit(lambda: committed.append(Game.objects.get(pk=game.pk).title))
    assert committed == ["claimed"]
    assert Event.objects.filter(game=game, seq=game.version + 1).exists()
    stale = claim_title(game, game.version - 1, title="stale")
    assert not claim_and_insert(stale, [new_event(game, game.version + 2)])
    assert Game.objects.get(pk=game.pk).title == "claimed"
    assert not Event.objects.filter(game=game, seq=game.version + 2).exists()


def test_inside_a_transaction_a_failed_claim_leaves_it_usable():
    game = GameFactory()
    with transaction.atomic():
        with pytest.raises(IntegrityError):
            claim_and_insert(claim_title(game, game.version), [new_event(game, game.version)])
        # The caller's transaction goes on.
        assert Game.objects.get(pk=game.pk).title != "claimed"


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL writes in one")
def test_on_postgresql_it_is_one_statement():
    game = GameFactory()
    events = [new_event(game, game.version + 1)]
    mails = [new_message(game, "a@example.org"), new_message(game, "b@example.org")]
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        assert claim_and_insert(claim_title(game, game.version), events, mails)
    # Inside a transaction, a savepoint around it (so a duplicate leaves the caller's
    # transaction usable); the writes themselves are one statement.
    writes = [q["sql"] for q in queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))]
    assert len(writes) == 1


def test_each_inserted_row_gets_post_save_as_save_gives_it_and_a_skipped_one_none():
    game = GameFactory()
    emails.write(new_message(game, "before@example.org"))  # written before: skipped below
    heard = []

    def hear(sender, instance, created, using, **kwargs):
        heard.append((sender, instance.pk, created, using))

    post_save.connect(hear, sender=Message)
    post_save.connect(hear, sender=Event)
    try:
        event = new_event(game, game.version + 1)
        mails = [new_message(game, "before@example.org"), new_message(game, "new@example.org")]
        assert claim_and_insert(claim_title(game, game.version), [event], mails)
        stale = [new_message(game, "late@example.org")]
        assert not claim_and_insert(claim_title(game, game.version + 5), [], stale)
    finally:
        post_save.disconnect(hear, sender=Message)
        post_save.disconnect(hear, sender=Event)
    assert mails[0].pk is None
    assert heard == [(Event, event.pk, True, "default"), (Message, mails[1].pk, True, "default")]
