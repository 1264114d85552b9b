"""Every kind of email scores below 1.0 with SpamAssassin (Debian's, local rules)."""

import pytest
from django.core import mail

from notifications.models import Message
from tests.conftest import delivered
from tests.notifications.every_kind import every_kind
from tests.spamassassin import spamd

# One spamd for the run: a real component, so in the PostgreSQL pass only, and every test
# here on one worker.
pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db,
    pytest.mark.usefixtures("anymail_backend"),
    pytest.mark.xdist_group("spamassassin"),
]


@pytest.fixture(scope="module")
def spamassassin():
    with spamd() as checker:
        yield checker


@pytest.fixture(autouse=True)
def production_like(settings):
    settings.SITE_URL = "https://railmail.example.org"
    settings.DEFAULT_FROM_EMAIL = "Railmail <games@railmail.example.org>"
    settings.RAILMAIL_INBOUND_DOMAIN = "in.railmail.example.org"


def test_every_kind_scores_below_one(spamassassin):
    verdicts = {}
    for kind, row in every_kind().items():
        mail.outbox.clear()
        sent = delivered(row)
        assert sent.status == Message.Status.SENT, (kind, sent.status, sent.error)
        [email] = mail.outbox
        verdicts[kind] = spamassassin.check(email.message().as_bytes())
    for kind, verdict in verdicts.items():
        print(f"{kind}: {verdict}")
    assert {kind: v.score for kind, v in verdicts.items() if v.score >= 1.0} == {}
