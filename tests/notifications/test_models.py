"""Why mail is stopped: the seat's columns, read with its table, answer as the query does."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.models import Seat
from notifications import emails
from notifications.models import (
    MAIL_STOPPED_COLUMNS,
    UNSUPPRESSIBLE_KINDS,
    MailPreference,
    Suppression,
)
from tests.factories import GameFactory

pytestmark = pytest.mark.django_db

KINDS = [emails.YOUR_TURN, emails.INVITATION, emails.ROUND_SCORED, *UNSUPPRESSIBLE_KINDS]


def test_a_seat_read_with_its_columns_answers_as_the_query_without_asking():
    game = GameFactory(seats=4)
    seat0, seat1, seat2, _ = game.seats.order_by("position")
    Suppression.objects.create(address=seat0.email, reason=Suppression.Reason.BOUNCED)
    MailPreference.objects.create(address=seat1.email, stopped_kinds=[emails.YOUR_TURN])
    MailPreference.objects.create(address=seat2.email, digest=True)
    read = list(game.seats.annotate(**MAIL_STOPPED_COLUMNS).order_by("position"))
    answers = {}
    with CaptureQueriesContext(connection) as queries:
        for seat in read:
            for kind in KINDS:
                answers[seat.email, kind] = Suppression.stops(seat.email.upper(), kind, seat=seat)
    assert len(queries) == 0
    assert answers == {(a, kind): Suppression.stops(a, kind) for a, kind in answers}
    assert answers[seat0.email, emails.YOUR_TURN] and answers[seat1.email, emails.YOUR_TURN]
    assert not answers[seat1.email, emails.INVITATION]
    assert not any(answers[seat.email, kind] for seat in read for kind in UNSUPPRESSIBLE_KINDS)


def test_a_seat_read_without_its_columns_or_at_another_address_is_asked_about():
    game = GameFactory()
    Suppression.objects.create(address="other@example.org", reason=Suppression.Reason.BOUNCED)
    plain = Seat.objects.get(game=game, position=0)
    annotated = game.seats.annotate(**MAIL_STOPPED_COLUMNS).get(position=0)
    with CaptureQueriesContext(connection) as queries:
        assert not Suppression.stops(plain.email, emails.YOUR_TURN, seat=plain)
    assert len(queries) == 2
    assert Suppression.stops("other@example.org", emails.YOUR_TURN, seat=annotated)
