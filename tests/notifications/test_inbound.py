"""Replies with moves and table talk, through the built-in SMTP receiver (real SMTP
conversations) and the provider's inbound webhook: one handler behind both."""

import base64
import json
import smtplib
from contextlib import contextmanager

import pytest
from aiosmtpd.controller import Controller
from django.core import mail
from django.test import Client
from django.utils import translation
from django.utils.translation import gettext

from games import rules
from games.bots import greedy_move
from games.models import TalkMessage
from games.services import load_state, submit_move
from games.words import places, suggestions
from notifications import emails, reply_addresses, reply_grammar
from notifications.management.commands.receive_mail import ReplyHandler
from notifications.models import InboundMail, Message
from tests.conftest import play_turn, sent
from tests.factories import GameFactory
from tests.faults import closed_port
from tests.notifications.replies import CLIENTS, raw_reply

# A real SMTP server whose handler reads the database from its own thread: committed
# data, on PostgreSQL.
pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("anymail_backend"),
]

DOMAIN = "in.railmail.example.org"


@pytest.fixture(autouse=True)
def inbound_domain(settings):
    settings.RAILMAIL_INBOUND_DOMAIN = DOMAIN
    settings.DEFAULT_FROM_EMAIL = "Railmail <games@railmail.example.org>"


@pytest.fixture(scope="module")
def receiver():
    """The receive_mail command's SMTP server, on a loopback port of its own."""
    controller = Controller(ReplyHandler(), hostname="127.0.0.1", port=closed_port())
    controller.start()
    yield controller.port
    controller.stop()


@contextmanager
def smtp(port):
    client = smtplib.SMTP("127.0.0.1", port, timeout=10)
    try:
        yield client
    finally:
        client.quit()


def send(port, raw: bytes, to: str, envelope_from: str = "seat0@example.com") -> str:
    with smtp(port) as client:
        client.sendmail(envelope_from, [to], raw)
    return InboundMail.objects.order_by("-pk").first().outcome


class Table:
    """A started game with Ada to move (after ``turns`` turns), and the your-turn email
    she was sent."""

    def __init__(self, turns: int = 0, language: str | None = None):
        self.game = GameFactory(language=language)
        for _ in range(turns):
            self.game = play_turn(self.game)
        state = load_state(self.game)
        self.ada = self.game.seats.get(position=state.seat_to_move)
        self.bea = self.game.seats.exclude(pk=self.ada.pk).order_by("position").first()
        self.email = [m for m in sent("your_turn") if m.to == [self.ada.email]][-1]
        self.reply_to = self.email.extra_headers["Reply-To"]
        self.version = self.game.version

    def offered(self):
        return suggestions.suggestions(load_state(self.game), self.ada.position)

    def moved(self) -> bool:
        self.game.refresh_from_db()
        return self.game.version > self.version


@pytest.fixture
def table():
    return Table()


def test_the_turn_email_offers_moves_and_says_how_to_reply(table):
    assert table.reply_to == reply_addresses.reply_address(table.ada, table.version)
    body = table.email.body
    assert "make the first line of your reply 1, 2 or 3" in body
    for offer in table.offered():
        assert f"{offer.number}: {offer.words}" in body
        assert f"/play/{table.version}/{offer.number}/" in body


def test_a_reply_with_a_number_plays_that_suggestion(receiver, table):
    second = table.offered()[1]
    raw = raw_reply(
        sender=table.ada.email, to=table.reply_to, first_lines="2", ours=table.email.body
    )
    assert send(receiver, raw, table.reply_to) == "played"
    assert table.moved()
    last = table.game.engine_events()[-1]
    assert last["seat"] == table.ada.position
    assert last["type"] in (rules.START_PLACED, rules.TRACK_BUILT)
    if isinstance(second.move, rules.PlaceStart):
        assert tuple(last["point"]) == second.move.point


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_a_named_move_under_each_clients_quote_is_played(receiver, table, client):
    board = load_state(table.game).board
    first = table.offered()[0].move
    if isinstance(first, rules.PlaceStart):
        what = places.point_name(board, board.point_index[first.point])
    else:
        what = "; ".join(places.line_name(board, board.line_id(line)) for line in first.lines)
    raw = raw_reply(
        sender=table.ada.email.upper(),  # case never matters
        to=table.reply_to,
        first_lines=f"move: {what}",
        ours=table.email.body,
        client=client,
    )
    assert send(receiver, raw, table.reply_to) == "played"
    assert table.moved()


def test_words_that_are_not_a_move_go_to_the_table(receiver, table):
    raw = raw_reply(
        sender=table.ada.email,
        to=table.reply_to,
        first_lines="Well played, Bea!",
        ours=table.email.body,
        client="gmail-de",
    )
    assert send(receiver, raw, table.reply_to) == "talk"
    said = TalkMessage.objects.get()
    assert said.text == "Well played, Bea!" and said.via == "email" and said.seat == table.ada
    assert not table.moved()


def test_a_reply_still_holding_our_email_is_refused_and_answered(receiver, table):
    # A client whose quote the parser cannot recognise: our text pasted, unmarked.
    raw = raw_reply(
        sender=table.ada.email, to=table.reply_to, first_lines="ok\n\n" + table.email.body
    )
    mail.outbox.clear()
    assert send(receiver, raw, table.reply_to) == "refused-talk"
    assert not TalkMessage.objects.exists()
    [answer] = sent("reply_answer")
    assert "may show your cities" in answer.body


def test_a_forged_sender_is_refused_without_an_answer(receiver, table):
    raw = raw_reply(sender="eve@example.net", to=table.reply_to, first_lines="1")
    mail.outbox.clear()
    assert send(receiver, raw, table.reply_to, envelope_from="eve@example.net") == "refused-sender"
    assert not table.moved()
    assert mail.outbox == []


def test_another_seats_reply_address_does_not_let_ada_play_for_bea(receiver, table):
    theirs = reply_addresses.reply_address(table.bea, table.version)
    raw = raw_reply(sender=table.ada.email, to=theirs, first_lines="1")
    assert send(receiver, raw, theirs) == "refused-sender"
    assert not table.moved()


def test_a_stale_reply_is_answered_with_why(receiver, table):
    # Bea's email from before Ada's move; by the time she answers it, Ada has moved.
    old = reply_addresses.reply_address(table.bea, table.version)
    state = load_state(table.game)
    submit_move(table.game, table.ada, greedy_move(state, table.ada.position), table.game.version)
    raw = raw_reply(sender=table.bea.email, to=old, first_lines="1")
    mail.outbox.clear()
    assert send(receiver, raw, old, envelope_from=table.bea.email) == "refused-stale"
    [answer] = sent("reply_answer")
    assert "The game moved on" in answer.body and answer.to == [table.bea.email]


def test_a_repeated_message_id_is_handled_once(receiver, table):
    raw = raw_reply(
        sender=table.ada.email,
        to=table.reply_to,
        first_lines="1",
        message_id="<same@mail.example.com>",
    )
    assert send(receiver, raw, table.reply_to) == "played"
    table.game.refresh_from_db()
    version = table.game.version
    with smtp(receiver) as client:
        client.sendmail(table.ada.email, [table.reply_to], raw)
    assert InboundMail.objects.count() == 1
    table.game.refresh_from_db()
    assert table.game.version == version


@pytest.mark.parametrize(
    "headers",
    [
        {"Auto-Submitted": "auto-replied"},
        {"X-Autoreply": "yes"},
        {"Precedence": "auto_reply"},
        {"Subject": "Abwesenheitsnotiz: Re: Your turn"},
    ],
)
def test_an_out_of_office_reply_is_ignored(receiver, table, headers):
    raw = raw_reply(
        sender=table.ada.email, to=table.reply_to, first_lines="I am away until Monday."
    )
    if "Subject" in headers:
        raw = raw.replace(b"Subject: Re: Your turn", b"Subject: " + headers["Subject"].encode())
        headers = {}
    raw = (
        raw_reply(sender=table.ada.email, to=table.reply_to, first_lines="1", headers=headers)
        if headers
        else raw
    )
    mail.outbox.clear()
    assert send(receiver, raw, table.reply_to) == "ignored-automatic"
    assert not table.moved() and not TalkMessage.objects.exists() and mail.outbox == []


def test_a_bounce_is_ignored(receiver, table):
    raw = raw_reply(
        sender="MAILER-DAEMON@mx.example.com", to=table.reply_to, first_lines="Undelivered"
    )
    assert send(receiver, raw, table.reply_to, envelope_from="") == "ignored-automatic"


def test_failed_dkim_reported_by_our_mta_is_refused(receiver, table):
    results = "mx.railmail.example.org; dkim=fail header.d=example.com; dmarc=fail"
    raw = raw_reply(
        sender=table.ada.email,
        to=table.reply_to,
        first_lines="1",
        headers={"Authentication-Results": results},
    )
    assert send(receiver, raw, table.reply_to) == "refused-authentication"
    assert not table.moved()


@pytest.mark.parametrize(
    "line, why",
    [
        ("move: Atlantis", "not a city"),
        ("move: Seattle to Miami", "places your start marker"),
        ("4", "There is no suggestion 4"),
    ],
)
def test_a_move_that_cannot_be_read_is_answered_never_guessed(receiver, table, line, why):
    raw = raw_reply(sender=table.ada.email, to=table.reply_to, first_lines=line)
    mail.outbox.clear()
    assert send(receiver, raw, table.reply_to) in ("refused-unclear", "refused-illegal")
    assert not table.moved()
    [answer] = sent("reply_answer")
    assert why in answer.body


def test_lines_that_do_not_join_are_answered_when_building(receiver):
    table = Table(turns=3)  # every start marker placed: Ada builds
    assert load_state(table.game).phase == rules.BUILDING
    raw = raw_reply(
        sender=table.ada.email, to=table.reply_to, first_lines="move: Seattle to Boston"
    )
    mail.outbox.clear()
    assert send(receiver, raw, table.reply_to) == "refused-unclear"
    assert "not neighbours" in sent("reply_answer")[0].body
    first = table.offered()[0].move
    board = load_state(table.game).board
    names = "; ".join(places.line_name(board, board.line_id(line)) for line in first.lines)
    raw = raw_reply(sender=table.ada.email, to=table.reply_to, first_lines=f"move: {names}")
    assert send(receiver, raw, table.reply_to) == "played"


def test_a_german_reply_names_lines_in_german_and_is_answered_in_german(receiver):
    table = Table(turns=3, language="de")  # every start marker placed: Ada builds
    with translation.override("de"):
        assert gettext("Your turn") in table.email.subject
        assert f"{reply_grammar.move_word()}: " in table.email.body  # how to reply, in German
        board = load_state(table.game).board
        mistake = "Atlantis bis 1 östlich von Atlantis"
        with pytest.raises(places.UnknownPlace) as unknown:
            places.line_named(board, mistake)
        first = table.offered()[0].move
        names = "; ".join(places.line_name(board, board.line_id(line)) for line in first.lines)
    assert " bis " in names
    raw = raw_reply(
        sender=table.ada.email, to=table.reply_to, first_lines=f"zug: {mistake}", client="gmail-de"
    )
    mail.outbox.clear()
    assert send(receiver, raw, table.reply_to) == "refused-unclear"
    [answer] = sent("reply_answer")
    assert str(unknown.value) in answer.body and "Atlantis" in str(unknown.value)
    with translation.override("de"):
        assert gettext("Your reply was not played") in answer.subject
    raw = raw_reply(
        sender=table.ada.email,
        to=table.reply_to,
        first_lines=f"Zug: {names}",
        ours=table.email.body,
        client="gmail-de",
    )
    assert send(receiver, raw, table.reply_to) == "played"
    assert table.moved()


def test_answers_to_replies_are_few_an_hour(receiver, table):
    mail.outbox.clear()
    for _ in range(8):
        raw = raw_reply(sender=table.ada.email, to=table.reply_to, first_lines="move: Atlantis")
        send(receiver, raw, table.reply_to)
    assert len(sent("reply_answer")) == 5


def test_mail_for_any_other_address_is_refused_at_rcpt(receiver):
    with smtp(receiver) as client, pytest.raises(smtplib.SMTPRecipientsRefused):
        client.sendmail("a@example.com", [f"postmaster@{DOMAIN}"], b"Subject: x\r\n\r\nx\r\n")
    assert not InboundMail.objects.exists()


def test_the_providers_inbound_webhook_plays_a_reply(settings, table):
    settings.ANYMAIL_ESP = "postmark"
    settings.ANYMAIL = {"WEBHOOK_SECRET": "railmail:s3cret"}
    payload = {
        "FromFull": {"Email": table.ada.email, "Name": "Ada"},
        "ToFull": [{"Email": table.reply_to, "Name": ""}],
        "CcFull": [],
        "Subject": "Re: Your turn",
        "MessageID": "22c74902-a0c1-4511-804f-341342852c90",
        "Headers": [{"Name": "Message-ID", "Value": "<webhook-1@mail.example.com>"}],
        "TextBody": "1\n\nOn Mon, 23 Nov 2026 at 10:00, Railmail wrote:\n> Your turn",
        "HtmlBody": "",
        "Attachments": [],
        "Date": "Mon, 23 Nov 2026 10:05:00 +0000",
    }
    auth = base64.b64encode(b"railmail:s3cret").decode()
    answer = Client(enforce_csrf_checks=True).post(
        "/mail/anymail/postmark/inbound/",
        json.dumps(payload),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Basic {auth}",
    )
    assert answer.status_code == 200
    assert InboundMail.objects.get().outcome == "played"
    assert table.moved()
    # Without the secret, nothing is read.
    assert Client().post(
        "/mail/anymail/postmark/inbound/", json.dumps(payload), content_type="application/json"
    ).status_code in (400, 403)


def test_a_suggestion_link_shows_the_move_and_plays_it_only_by_post(client, table):
    url = f"/s/{table.email.body.split('/play/')[0].rsplit('/s/', 1)[1]}/play/{table.version}/1/"
    page = client.get(url)
    assert page.status_code == 200 and "Play this move?" in page.content.decode()
    assert not table.moved()  # a GET (a mail scanner) changes nothing
    assert client.post(url).status_code == 302
    assert table.moved()
    again = client.post(url)
    assert again.status_code == 409 and "The game has moved on" in again.content.decode()


def test_emails_say_to_reply_only_where_the_site_reads_mail(settings, table):
    settings.RAILMAIL_INBOUND_DOMAIN = ""
    row = emails.reminder(table.game, table.ada, 24)
    from tests.conftest import delivered

    built = delivered(row)
    assert built.headers["Reply-To"] == settings.RAILMAIL_REPLY_TO
    assert "first line of your reply" not in built.body_text
    assert Message.objects.filter(kind="reply_answer").count() == 0
