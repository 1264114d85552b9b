"""Consent at the table by reply: through the one handler of replies (notifications.inbound)."""

import email
from datetime import timedelta

import pytest
from django.utils import translation

from games import rules
from games.bots import greedy_move
from games.models import Game
from games.services import SeatSpec, create_game, load_state, start_game, submit_move
from notifications import compose, consent_replies, emails, inbound, reply_addresses
from notifications.models import Message
from tests.notifications.replies import raw_reply

pytestmark = pytest.mark.django_db

PEOPLE = [SeatSpec("Ada", "ada@example.com"), SeatSpec("Bo", "bo@example.com")]


@pytest.fixture(autouse=True)
def inbound_domain(settings):
    settings.RAILMAIL_INBOUND_DOMAIN = "in.railmail.example.org"


@pytest.fixture
def game() -> Game:
    options = rules.Options(take_backs=True)
    return start_game(create_game("transamerica", options, PEOPLE, None, timedelta(days=2)))


def reply(seat, text: str) -> inbound.Outcome:
    seat.game.refresh_from_db()
    to = reply_addresses.reply_address(seat, seat.game.version)
    raw = raw_reply(sender=seat.email, to=to, first_lines=text)
    return inbound.receive(email.message_from_bytes(raw))


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ("take back", consent_replies.TAKE_BACK),
        ("Zurücknehmen!", consent_replies.TAKE_BACK),
        ("More  time", consent_replies.MORE_TIME),
        ("mehr Zeit", consent_replies.MORE_TIME),
        ("end game.", consent_replies.END_GAME),
        ("Spiel beenden", consent_replies.END_GAME),
        ("nudge\nplease hurry", consent_replies.NUDGE),
        ("anstupsen", consent_replies.NUDGE),
        ("could you take back that move?", None),
        ("1", None),
    ],
)
def test_only_a_whole_first_line_is_a_command(text, command):
    assert consent_replies.read(text) == command


def test_a_take_back_by_reply(game):
    first = game.seat_to_move
    ada = game.seats.get(position=first)
    state = load_state(game)
    submit_move(game, ada, greedy_move(state, first), game.version)
    assert reply(ada, "take back").code == consent_replies.TAKE_BACK
    game.refresh_from_db()
    assert game.seat_to_move == first
    assert game.events.order_by("-seq").first().type == rules.TURN_TAKEN_BACK


def test_a_refused_command_by_reply_is_answered_with_why_in_the_players_language(game):
    to_move = game.seats.get(position=game.seat_to_move)
    outcome = reply(to_move, "mehr Zeit")
    assert outcome.code == "refused-consent"
    [answer] = Message.objects.filter(kind=emails.REPLY_ANSWER, to=to_move.email)
    with translation.override("en"):
        assert answer.facts["why"] == "It is your own turn."


def test_more_time_agreement_and_nudge_by_reply(game):
    other = game.seats.exclude(position=game.seat_to_move).get()
    assert reply(other, "more time").code == consent_replies.MORE_TIME
    assert reply(other, "nudge").code == consent_replies.NUDGE
    assert reply(other, "end game").code == consent_replies.END_GAME
    types = list(game.events.order_by("seq").values_list("type", flat=True))[-3:]
    assert types == [rules.TIME_GIVEN, rules.NUDGED, rules.END_AGREED]


def test_a_command_played_by_reply_is_confirmed_under_the_reply(game):
    other = game.seats.exclude(position=game.seat_to_move).get()
    other.game.refresh_from_db()
    to = reply_addresses.reply_address(other, other.game.version)
    raw = raw_reply(sender=other.email, to=to, first_lines="mehr Zeit")
    sent = email.message_from_bytes(raw)
    assert inbound.receive(sent).code == consent_replies.MORE_TIME
    [answer] = Message.objects.filter(kind=emails.REPLY_ANSWER, to=other.email)
    assert answer.facts["code"] == "done-consent"
    assert answer.facts["in_reply_to"] == sent["Message-ID"].strip()
    built = compose.compose(answer)
    assert "Done" in built.subject
    assert "The player to move has 24 more hours." in built.text
    assert "was not played" not in built.text
