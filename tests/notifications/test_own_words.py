"""The player's own words are found above, below or between the quote of every client in
the corpus; links, cities and our email are found however they were re-wrapped."""

import email
from email import policy

import pytest

from notifications import own_words
from tests.notifications.replies import LAYOUTS, raw_reply

OURS = """Ada, it is your turn in Friday game (round 1).

Your cities: El Paso, Washington, Salt Lake City, Sacramento, Duluth

Make your move:
https://railmail.example.org/s/eyJnIjoxLCJzIjowLCJuIjoiYWJjZGVmZ2hpamtsbW5vcCJ9:1xWAPv:aTTP/

Or play one of these with one tap:
1: Start marker in Salt Lake City
   https://railmail.example.org/s/eyJnIjoxLCJzIjowLCJuIjoiYWJjZGVmZ2hpamtsbW5vcCJ9:1xWAPv:aTTP/play/5/1/

Scores: Ada 12, Bea 12
--\x20
You get this email because you play in a game on Railmail.
"""

OWN = (
    "move: Denver to 1 east of Denver and 1 east of Denver to 1 north-east and 1 east of "
    "Helena\n\nThanks, Bea! Nice one.\nAda"
)


def paragraphs(text: str) -> list[str]:
    return [" ".join(block.split()) for block in text.split("\n\n") if block.strip()]


@pytest.mark.parametrize("client, position", LAYOUTS)
def test_the_readers_own_words_are_found_wherever_they_stand(client, position):
    raw = raw_reply(
        sender="ada@example.com",
        to="r@in.example.org",
        first_lines=OWN,
        ours=OURS,
        client=client,
        position=position,
    )
    message = email.message_from_bytes(raw, policy=policy.default)
    found = own_words.own_words(own_words.message_text(message))
    # Every paragraph whole (wrapped lines are the mail program's), none of the quote.
    assert paragraphs(found) == paragraphs(OWN)


def test_a_signature_ends_at_the_next_quote_and_phones_lines_are_dropped():
    text = (
        "> On Mon, Bea wrote:\n> Your move?\n\nyes, soon\n\nSent from my iPhone\n\n"
        "> more of the quote\n\nmove: Denver\n\n-- \nAda Lovelace\nLondon"
    )
    assert own_words.own_words(text) == "yes, soon\n\nmove: Denver"


def test_an_unmarked_quote_under_a_header_block_or_attribution_is_cut_to_the_end():
    for quote in (
        "Von: Railmail <a@b>\nGesendet: Montag\nAn: Ada\n\nYour cities: Denver",
        "-----Original-Nachricht-----\nBetreff: x\n\nYour cities: Denver",
        "On Monday, 23 November 2026, Railmail <a@b> wrote:\n\n\nYour cities: Denver",
    ):
        assert own_words.own_words(f"ok\n\n{quote}\n\nmove: Denver") == "ok"


def test_an_html_quote_is_marked_whatever_the_client_calls_it():
    html = (
        "<div>move: a to b</div><div><br></div><div>Ada</div>"
        '<div class="gmail_quote">On x wrote:<blockquote>Your cities</blockquote></div>'
        "<p>under</p><blockquote type='cite'>quoted</blockquote>"
        '<div id="appendonsend"></div><div>From: x</div><div>Your cities</div>'
    )
    text = own_words.html_text(html)
    assert own_words.own_words(text) == "move: a to b\n\nAda\n\nunder"


def test_a_seat_link_is_found_however_it_was_wrapped():
    token = "eyJnIjoxLCJzIjowLCJuIjoiYWJjZGVmZ2hpamtsbW5vcCJ9:1xWAPv:aTTP"
    wrapped = f"look at https://railmail.example.org/s/{token[:30]}\n> {token[30:]}/ please"
    assert own_words.holds_link(wrapped, [])
    assert own_words.holds_link(f"the code {token[:25]}\n{token[25:]}", [token])
    assert not own_words.holds_link("see you on /s/ days", [token])


def test_own_cities_are_counted_in_any_spelling_and_wrapping():
    cities = [["Munich", "München"], ["Salt Lake City"], ["Wien", "Vienna"], ["Denver"]]
    assert own_words.cities_named("MUNCHEN, salt\n> lake city und WIEN", cities) == 3
    assert own_words.cities_named("Denverish Salt Lake", cities) == 0


def test_our_email_is_found_however_the_quote_was_re_wrapped():
    ours = "Your cities: El Paso, Washington, Salt Lake City, Sacramento, Duluth\nScores: A 1"
    rewrapped = "hi\n> Your cities: El Paso, Washington, Salt\n> Lake City, Sacramento, Duluth"
    assert own_words.quotes_ours(rewrapped, ours)
    assert not own_words.quotes_ours("hi, your cities look good", ours)
