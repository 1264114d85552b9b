"""Unsubscribe and resume tokens carry no time: the same address gives the same link in
every email, and the links signed with the time, as they were before, still work."""

import pytest
from django.core import signing
from django.urls import reverse

from notifications import emails
from notifications.models import MailPreference, Suppression
from tests.signing_clock import move_signing_clock

pytestmark = pytest.mark.django_db


def test_an_address_gets_the_same_links_a_second_later(monkeypatch):
    before = (
        emails.unsubscribe_url("ada@example.org", "your_turn"),
        emails.resume_token("ada@example.org"),
    )
    move_signing_clock(monkeypatch, 1)
    after = (
        emails.unsubscribe_url("ada@example.org", "your_turn"),
        emails.resume_token("ada@example.org"),
    )
    assert after == before


def test_an_unsubscribe_link_signed_the_old_way_still_works(client, monkeypatch):
    payload = {"a": "ada@example.org", "k": "your_turn"}
    old = signing.dumps(payload, salt=emails.UNSUBSCRIBE_SALT)
    move_signing_clock(monkeypatch, 400 * 24 * 3600)  # clicked in an email of last year
    assert old != emails.unsubscribe_token("ada@example.org", "your_turn")
    path = reverse("notifications:unsubscribe", args=[old])
    assert client.post(path, {"List-Unsubscribe": "One-Click"}).status_code == 200
    assert MailPreference.objects.get(address="ada@example.org").digest
    # And the oldest kind, naming no kind of email: it stops everything.
    oldest = signing.dumps("bob@example.org", salt=emails.UNSUBSCRIBE_SALT)
    path = reverse("notifications:unsubscribe", args=[oldest])
    assert client.post(path).status_code == 200
    assert Suppression.objects.get().address == "bob@example.org"


def test_a_resume_token_signed_the_old_way_still_turns_mail_back_on(client):
    Suppression.objects.create(address="ada@example.org", reason=Suppression.Reason.COMPLAINED)
    old = signing.dumps("ada@example.org", salt=emails.RESUME_SALT)
    assert client.post(reverse("notifications:resume"), {"token": old}).status_code == 200
    assert not Suppression.objects.exists()
    # A token of the other kind, old or new, is not one.
    for other in (
        signing.dumps("ada@example.org", salt=emails.UNSUBSCRIBE_SALT),
        emails.unsubscribe_token("ada@example.org"),
    ):
        assert client.post(reverse("notifications:resume"), {"token": other}).status_code == 400
