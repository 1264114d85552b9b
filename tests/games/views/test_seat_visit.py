"""The seat view's read: the seat at its table, and why mail to it is stopped."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.pages.table_read import TableRead
from games.views.seat_visit import VisitRead
from notifications import emails
from notifications.models import MailPreference, Suppression
from tests.factories import GameFactory

pytestmark = pytest.mark.django_db


def test_why_mail_is_stopped_comes_with_the_table_in_one_query():
    game = GameFactory(seats=3)
    seat0, seat1, seat2 = game.seats.order_by("position")
    Suppression.objects.create(address=seat0.email, reason=Suppression.Reason.BOUNCED)
    MailPreference.objects.create(address=seat1.email, digest=True, stopped_kinds=[emails.REMINDER])
    read = VisitRead(TableRead())
    with CaptureQueriesContext(connection) as queries:
        said = [read(game.pk, seat.position) for seat in (seat0, seat1, seat2)]
    assert len(queries) == 3
    assert [visit.at.seat.pk for visit in said] == [seat0.pk, seat1.pk, seat2.pk]
    stopped = [visit.mail_stopped for visit in said]
    assert stopped[0]["suppression"] == {"reason": "bounced", "address": seat0.email.lower()}
    assert stopped[1]["digest"] and stopped[1]["suppression"] is None
    assert len(stopped[1]["kinds"]) == 1
    assert stopped[2] is None
    assert read(game.pk, 7) is None


# psycopg keeps how it parsed a statement of at most 4,096 bytes (MAX_CACHED_STATEMENT_LENGTH
# in psycopg/_queries.py) and parses a longer one anew each time it runs.
PSYCOPG_KEEPS_AT_MOST = 4096


@pytest.mark.postgres
def test_the_read_is_short_enough_for_psycopg_to_keep_its_parse():
    """Every board page and move runs this statement, so it should be parsed once per
    connection. A column added to Seat, Game or User lengthens it; over the limit, leave
    out a column no page needs (as ``table_read.SIGN_IN_FIELDS``)."""
    game = GameFactory(seats=3)
    read = VisitRead(TableRead())
    read(game.pk, 0)
    [compiled] = read.query.compiled.values()
    assert len(compiled.sql.encode()) <= PSYCOPG_KEEPS_AT_MOST
