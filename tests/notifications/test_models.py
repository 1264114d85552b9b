"""Why mail is stopped: one answer for an address and a kind of email."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from notifications import emails
from notifications.models import UNSUPPRESSIBLE_KINDS, MailPreference, Suppression
from tests.factories import GameFactory

pytestmark = pytest.mark.django_db

KINDS = [emails.YOUR_TURN, emails.INVITATION, emails.ROUND_SCORED, *UNSUPPRESSIBLE_KINDS]


def test_a_stopped_address_or_kind_stops_its_mail_but_never_the_unsuppressible():
    game = GameFactory(seats=4)
    seat0, seat1, seat2, seat3 = game.seats.order_by("position")
    Suppression.objects.create(address=seat0.email, reason=Suppression.Reason.BOUNCED)
    MailPreference.objects.create(address=seat1.email, stopped_kinds=[emails.YOUR_TURN])
    MailPreference.objects.create(address=seat2.email, digest=True)
    asked = [(seat.email.upper(), kind) for seat in (seat0, seat1, seat2, seat3) for kind in KINDS]
    with CaptureQueriesContext(connection) as queries:
        stopped = Suppression.stopping(asked)
    assert len(queries) == 2  # however many are asked about
    positions = {seat.email.lower(): seat.position for seat in (seat0, seat1, seat2, seat3)}
    assert {(positions[address], kind) for address, kind in stopped} == {
        (0, emails.YOUR_TURN),
        (0, emails.INVITATION),
        (0, emails.ROUND_SCORED),
        (1, emails.YOUR_TURN),
    }
