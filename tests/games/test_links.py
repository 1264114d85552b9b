import pytest
from django.core import signing
from django.test import override_settings

from games import links
from games.links import BadLink, rotate_link, seat_for_token, seat_path, seat_url
from helpers import signing as timeless
from tests.factories import GameFactory
from tests.signing_clock import move_signing_clock

pytestmark = pytest.mark.django_db


def stamped(payload) -> str:
    """A seat token as links were signed before they were timeless: with the second."""
    return signing.dumps(payload, salt=links.SALT, compress=False)


def signed_now(payload) -> str:
    return timeless.dumps(payload, salt=links.SALT)


# Tokens of both kinds open seats: the stamped ones are in players' mailboxes.
both_kinds = pytest.mark.parametrize("sign", [signed_now, stamped], ids=["timeless", "stamped"])


def token_of(seat):
    return seat_path(seat).strip("/").split("/")[1]


def test_a_link_opens_its_own_seat():
    game = GameFactory()
    for seat in game.seats.all():
        assert seat_for_token(token_of(seat)) == seat


def test_a_seats_link_is_the_same_a_second_later(monkeypatch):
    # A link's age plays no part: an email built again, or a page made a moment after the
    # link a test expects, holds the very same link.
    seat = GameFactory().seats.first()
    before = (seat_path(seat), links.play_again_url(seat), links.suggestion_url(seat, 3, 1))
    move_signing_clock(monkeypatch, 1)
    assert (seat_path(seat), links.play_again_url(seat), links.suggestion_url(seat, 3, 1)) == before


def test_a_link_signed_the_old_way_still_opens_its_seat_until_revoked(monkeypatch):
    seat = GameFactory().seats.first()
    old = stamped({"g": seat.game_id, "s": seat.position, "n": seat.link_nonce})
    move_signing_clock(monkeypatch, 90 * 24 * 3600)  # read months later
    assert old != token_of(seat)
    assert seat_for_token(old) == seat
    assert links.read_token(old) == links.read_token(token_of(seat))
    rotate_link(seat)
    with pytest.raises(BadLink) as caught:
        seat_for_token(old)
    assert caught.value.reason == "revoked"


@override_settings(SITE_URL="https://railmail.example")
def test_seat_url_is_absolute():
    seat = GameFactory().seats.first()
    assert seat_url(seat) == "https://railmail.example" + seat_path(seat)
    assert seat_path(seat).startswith("/s/")


def test_a_tampered_link_is_refused():
    seat = GameFactory().seats.first()
    token = token_of(seat)
    forged = token[:-1] + ("A" if token[-1] != "A" else "B")
    with pytest.raises(BadLink) as caught:
        seat_for_token(forged)
    assert caught.value.reason == "tampered"


def test_a_payload_signed_for_another_purpose_is_refused():
    seat = GameFactory().seats.first()
    payload = {"g": seat.game_id, "s": seat.position, "n": seat.link_nonce}
    foreign = signing.dumps(payload, salt="accounts.login", compress=False)
    with pytest.raises(BadLink) as caught:
        seat_for_token(foreign)
    assert caught.value.reason == "tampered"


@both_kinds
def test_a_link_cannot_be_moved_to_another_seat(sign):
    game = GameFactory()
    seat0, seat1 = game.seats.all()[:2]
    # Seat 1's position with seat 0's nonce, correctly signed: the nonce does not match.
    payload = {"g": game.pk, "s": seat1.position, "n": seat0.link_nonce}
    token = sign(payload)
    with pytest.raises(BadLink) as caught:
        seat_for_token(token)
    assert caught.value.reason == "revoked"


def test_rotating_kills_every_older_link_of_the_seat_only():
    game = GameFactory()
    seat, other = game.seats.all()[:2]
    old = token_of(seat)
    other_token = token_of(other)
    rotate_link(seat)
    with pytest.raises(BadLink) as caught:
        seat_for_token(old)
    assert caught.value.reason == "revoked"
    assert caught.value.seat == seat
    assert seat_for_token(token_of(seat)) == seat
    assert seat_for_token(other_token) == other


@both_kinds
def test_a_link_to_a_missing_seat_is_refused(sign):
    seat = GameFactory().seats.first()
    payload = {"g": seat.game_id, "s": 5, "n": seat.link_nonce}
    with pytest.raises(BadLink) as caught:
        seat_for_token(sign(payload))
    assert caught.value.reason == "missing"


@both_kinds
@pytest.mark.parametrize("payload", [[1, 2, 3], {"g": "1", "s": 0, "n": "x"}, {"g": 1}])
def test_a_signed_but_malformed_payload_is_refused(payload, sign):
    with pytest.raises(BadLink):
        seat_for_token(sign(payload))


def test_bad_link_is_a_bad_signature():
    assert issubclass(BadLink, signing.BadSignature)


def test_a_fresh_link_works_beside_the_old_one_until_it_is_used():
    game = GameFactory()
    seat, other = game.seats.all()[:2]
    old = token_of(seat)
    links.start_fresh_link(seat)
    fresh = links.fresh_seat_url(seat).strip("/").split("/")[-1]
    assert fresh != old
    # Opening either changes nothing.
    assert seat_for_token(fresh) == seat
    assert seat_for_token(old) == seat
    # Asking again keeps the same fresh link.
    pending = seat.pending_link_nonce
    links.start_fresh_link(seat)
    assert seat.pending_link_nonce == pending
    # Used (a POST through it), it becomes the seat's link and the old one dies.
    assert seat_for_token(fresh, use=True) == seat
    with pytest.raises(BadLink) as caught:
        seat_for_token(old)
    assert caught.value.reason == "revoked"
    seat.refresh_from_db()
    assert links.read_token(fresh).nonce == seat.link_nonce
    assert seat.pending_link_nonce == ""
    assert seat_for_token(token_of(other)) == other


def test_using_the_old_link_keeps_the_fresh_one_pending():
    seat = GameFactory().seats.first()
    old = token_of(seat)
    links.start_fresh_link(seat)
    fresh = links.fresh_seat_url(seat).strip("/").split("/")[-1]
    assert seat_for_token(old, use=True) == seat
    assert seat_for_token(fresh) == seat and seat_for_token(old) == seat


def test_handing_a_seat_on_kills_its_fresh_link_too():
    seat = GameFactory().seats.first()
    links.start_fresh_link(seat)
    fresh = links.fresh_seat_url(seat).strip("/").split("/")[-1]
    rotate_link(seat)
    with pytest.raises(BadLink):
        seat_for_token(fresh, use=True)
