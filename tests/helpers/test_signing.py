import pytest
from django.core import signing

from helpers import signing as timeless
from tests.signing_clock import move_signing_clock

PAYLOAD = {"g": 7, "s": 1, "n": "nonce"}


def test_a_payload_signs_to_the_same_token_a_second_later(monkeypatch):
    token = timeless.dumps(PAYLOAD, salt="test")
    move_signing_clock(monkeypatch, 1)
    assert timeless.dumps(PAYLOAD, salt="test") == token
    assert timeless.loads(token, salt="test") == PAYLOAD


def test_the_clock_move_is_seen_by_tokens_signed_with_the_time(monkeypatch):
    # What made the tests flaky, made to happen every time.
    stamped = signing.dumps(PAYLOAD, salt="test")
    move_signing_clock(monkeypatch, 1)
    assert signing.dumps(PAYLOAD, salt="test") != stamped


def test_a_token_signed_with_the_time_the_old_way_is_still_read(monkeypatch):
    old = signing.dumps(PAYLOAD, salt="test")
    move_signing_clock(monkeypatch, 400 * 24 * 3600)  # from an email of last year
    assert timeless.loads(old, salt="test") == PAYLOAD
    assert old.count(":") == 2 and timeless.dumps(PAYLOAD, salt="test").count(":") == 1


def test_the_compressed_form_reads_back():
    token = timeless.dumps(["x" * 200], salt="test", compress=True)
    assert token.startswith(".")
    assert timeless.loads(token, salt="test") == ["x" * 200]


def tampered(token: str) -> str:
    """``token`` with its last character changed (to another one, whatever it was)."""
    return token[:-1] + ("A" if token[-1] != "A" else "B")


# Made when each test runs (a stamped token made at collection would differ between
# xdist's workers, and so would the tests' names).
TOKENS = {
    "timeless under another salt": lambda: timeless.dumps(PAYLOAD, salt="other"),
    "stamped under another salt": lambda: signing.dumps(PAYLOAD, salt="other"),
    # Timeless, but under the plain salt that stamped tokens use: not one of ours.
    "plain signer": lambda: signing.Signer(salt="test").sign_object(PAYLOAD),
    "timeless tampered": lambda: tampered(timeless.dumps(PAYLOAD, salt="test")),
    "stamped tampered": lambda: tampered(signing.dumps(PAYLOAD, salt="test")),
    "garbage": lambda: "garbage",
    "two parts": lambda: "a:b",
    "empty": lambda: "",
}


@pytest.mark.parametrize("kind", TOKENS)
def test_a_token_signed_for_another_purpose_or_tampered_is_refused(kind):
    with pytest.raises(signing.BadSignature):
        timeless.loads(TOKENS[kind](), salt="test")
