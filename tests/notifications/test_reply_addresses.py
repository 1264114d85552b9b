"""Reply addresses name one seat and one email, and die with the seat's links."""

import re

import pytest

from games.links import rotate_link
from notifications import reply_addresses
from tests.factories import GameFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def inbound_domain(settings):
    settings.RAILMAIL_INBOUND_DOMAIN = "in.railmail.example.org"


def test_an_address_is_short_lower_case_base32_and_reads_back():
    seat = GameFactory().seats.get(position=1)
    address = reply_addresses.reply_address(seat, 7)
    local, _, domain = address.partition("@")
    assert domain == "in.railmail.example.org"
    assert len(local) <= 64 and re.fullmatch(r"reply\+[a-z2-7]+", local)
    assert reply_addresses.read(address) == (seat, 7)
    assert reply_addresses.read(address.upper()) == (seat, 7)  # a system that upper-cases


def test_a_changed_or_guessed_token_is_refused():
    seat = GameFactory().seats.get(position=1)
    address = reply_addresses.reply_address(seat, 7)
    local, _, domain = address.partition("@")
    flipped = local[:-1] + ("a" if local[-1] != "a" else "b")
    for bad in (f"{flipped}@{domain}", f"reply+abc@{domain}", f"reply+{'a' * 29}@{domain}"):
        with pytest.raises(reply_addresses.BadReplyAddress):
            reply_addresses.read(bad)
    with pytest.raises(reply_addresses.BadReplyAddress, match="not one of our"):
        reply_addresses.read(local + "@elsewhere.example")


def test_it_dies_with_the_seats_links():
    seat = GameFactory().seats.get(position=1)
    address = reply_addresses.reply_address(seat, 7)
    rotate_link(seat)
    with pytest.raises(reply_addresses.BadReplyAddress, match="no longer"):
        reply_addresses.read(address)


def test_without_an_inbound_domain_there_is_none(settings):
    settings.RAILMAIL_INBOUND_DOMAIN = ""
    seat = GameFactory().seats.get(position=1)
    assert reply_addresses.reply_address(seat, 7) == ""
