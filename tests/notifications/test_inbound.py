"""Replies with moves and table talk, through the built-in SMTP receiver (real SMTP
conversations) and the provider's inbound webhook: one handler behind both."""

import base64
import json
import smtplib
from contextlib import contextmanager

import pytest
from aiosmtpd.controller import Controller
from django.core import mail
from django.db import connections
from django.test import Client, override_settings
from django.utils import translation
from django.utils.translation import gettext

from games import links, rules
from games.bots import greedy_move
from games.models import TalkMessage
from games.services import load_state, submit_move
from games.words import places, suggestions
from notifications import emails, preferences, reply_addresses, reply_grammar
from notifications.management.commands.receive_mail import ReplyHandler
from notifications.models import InboundMail, Message
from tests.conftest import play_turn, sent
from tests.factories import GameFactory, simulated_game
from tests.faults import closed_port
from tests.notifications.replies import LAYOUTS, raw_reply, two_line_move

# A real SMTP server whose handler reads the database from its own thread: committed
# data, on PostgreSQL.
pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("anymail_backend", "turn_emails_at_once"),
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
        # Only Ada's email is read: the earlier turns' emails wait out a grace period that
        # outlasts the test (composing each, picture and suggestions, was most of its time).
        with override_settings(RAILMAIL_TURN_EMAIL_GRACE=3600 if turns else 0):
            self.game = GameFactory(language=language)
            for _ in range(turns - 1):
                self.game = play_turn(self.game)
        if turns:
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
    assert "write on the first line of your reply 1, 2 or 3" in body
    for offer in table.offered():
        assert f"{offer.number}: {offer.words}" in body
        assert f"/play/{table.version}/{offer.number}/" in body
    # The grammar's example is a move legal for the reader: their first suggestion.
    state = load_state(table.game)
    example = reply_grammar.move_text(table.offered()[0].move, state.board)
    assert f'"move: {example}"' in body


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


def test_a_reply_while_the_database_is_away_is_deferred_not_bounced(receiver, table):
    """A database restart must not bounce a reply: the receiver answers 451 (try again
    later), and the sender's MTA delivers it once the database is back."""
    raw = raw_reply(
        sender=table.ada.email, to=table.reply_to, first_lines="1", ours=table.email.body
    )
    # The receiver's next connection goes to a port where nothing listens: refused, as
    # while PostgreSQL restarts. (Each reply closes its connection when done.)
    database = connections["default"].settings_dict
    port = database["PORT"]
    database["PORT"] = str(closed_port())
    try:
        with pytest.raises(smtplib.SMTPDataError) as answer, smtp(receiver) as client:
            client.sendmail(table.ada.email, [table.reply_to], raw)
    finally:
        database["PORT"] = port
    assert answer.value.smtp_code == 451
    assert not table.moved()
    assert send(receiver, raw, table.reply_to) == "played"  # tried again: played once
    assert table.moved()


@pytest.mark.parametrize("client, position", LAYOUTS)
def test_a_wrapped_two_line_move_from_each_client_is_played_whole_and_confirmed(
    receiver, client, position
):
    """The corpus: each client's reply, the move above, below or between the quote, in
    the client's language, two lines long (so wrapped where the client wraps)."""
    language = "de" if client.endswith("-de") else "en"
    table = Table(turns=3, language=language)  # every start marker placed: Ada builds
    state = load_state(table.game)
    move = two_line_move(state)
    with translation.override(language):
        written = f"{reply_grammar.move_word()}: {reply_grammar.move_text(move, state.board)}"
        thanks = "Danke, Bea!" if language == "de" else "Thanks, Bea!"
    assert len(written) > 78  # longer than any client's lines
    raw = raw_reply(
        sender=table.ada.email.upper(),  # case never matters
        to=table.reply_to,
        first_lines=f"{written}\n\n{thanks}\nAda",
        ours=table.email.body,
        client=client,
        position=position,
        message_id="<corpus-1@mail.example.com>",
    )
    mail.outbox.clear()
    assert send(receiver, raw, table.reply_to) == "played"
    built = table.game.engine_events()[-1]
    assert built["type"] == rules.TRACK_BUILT and built["seat"] == table.ada.position
    assert [tuple(map(tuple, line)) for line in built["lines"]] == [
        tuple(line) for line in move.lines
    ]
    assert not TalkMessage.objects.exists()  # words after a move are not talk
    [confirmation] = sent("reply_played")
    assert confirmation.to == [table.ada.email]
    assert confirmation.extra_headers["In-Reply-To"] == "<corpus-1@mail.example.com>"
    with translation.override(language):
        assert gettext("Your move was played") in confirmation.subject
        ignored = "What you wrote after your move was ignored (it was not posted to the table):"
        assert gettext(ignored) in confirmation.body
    assert thanks in confirmation.body


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


def test_words_below_the_quote_go_to_the_table_as_written(receiver, table):
    raw = raw_reply(
        sender=table.ada.email,
        to=table.reply_to,
        first_lines="Good luck, everyone!",
        ours=table.email.body,
        client="thunderbird-en",
        position="below",
    )
    assert send(receiver, raw, table.reply_to) == "talk"
    assert TalkMessage.objects.get().text == "Good luck, everyone!"


def own_cities(table, count: int) -> list[str]:
    return list(load_state(table.game).hands[table.ada.position])[:count]


def test_words_naming_three_of_the_readers_cities_never_reach_the_table(receiver, table):
    three = own_cities(table, 3)
    # Re-wrapped and lower case, as a quote pasted by hand would be.
    words = f"I still need {three[0].lower()}, {three[1]}\nand {three[2].upper()} :("
    raw = raw_reply(sender=table.ada.email, to=table.reply_to, first_lines=words)
    mail.outbox.clear()
    assert send(receiver, raw, table.reply_to) == "refused-talk"
    assert not TalkMessage.objects.exists()
    [answer] = sent("reply_answer")
    assert "three or more of your own cities" in answer.body
    two = own_cities(table, 2)
    raw = raw_reply(
        sender=table.ada.email, to=table.reply_to, first_lines=f"{two[0]} or {two[1]}, hmm."
    )
    assert send(receiver, raw, table.reply_to) == "talk"


def test_words_holding_the_seat_link_never_reach_the_table(receiver, table):
    link = links.seat_url(table.ada)
    wrapped = f"Bea, look:\n{link[:40]}\n{link[40:]}"
    raw = raw_reply(sender=table.ada.email, to=table.reply_to, first_lines=wrapped)
    mail.outbox.clear()
    assert send(receiver, raw, table.reply_to) == "refused-talk"
    assert not TalkMessage.objects.exists()
    assert "link to your seat" in sent("reply_answer")[0].body


@pytest.mark.parametrize("line", ["mvoe: 1", "moev Seattle", "Seattle to 1 east of Seattle"])
def test_a_mistyped_command_is_answered_with_the_grammar_never_posted(receiver, table, line):
    raw = raw_reply(
        sender=table.ada.email, to=table.reply_to, first_lines=line, ours=table.email.body
    )
    mail.outbox.clear()
    assert send(receiver, raw, table.reply_to) == "refused-mistyped"
    assert not TalkMessage.objects.exists() and not table.moved()
    [answer] = sent("reply_answer")
    assert "write on the first line of your reply 1, 2 or 3" in answer.body
    for offer in table.offered():  # the reader's suggestions, repeated
        assert f"{offer.number}: {offer.words}" in answer.body


def test_every_refusal_shows_the_grammar_and_the_suggestions(receiver, table):
    raw = raw_reply(
        sender=table.ada.email,
        to=table.reply_to,
        first_lines="move: Atlantis",
        message_id="<refused-1@mail.example.com>",
    )
    mail.outbox.clear()
    assert send(receiver, raw, table.reply_to) == "refused-unclear"
    [answer] = sent("reply_answer")
    assert answer.extra_headers["In-Reply-To"] == "<refused-1@mail.example.com>"  # threaded
    state = load_state(table.game)
    example = reply_grammar.move_text(table.offered()[0].move, state.board)
    assert f'"move: {example}"' in answer.body
    assert f"1: {table.offered()[0].words}" in answer.body


def test_a_reply_to_a_finished_game_says_the_game_is_over(receiver):
    game = simulated_game(seed=1)
    ada = game.seats.get(position=0)
    address = reply_addresses.reply_address(ada, game.version)
    raw = raw_reply(sender=ada.email, to=address, first_lines="1")
    mail.outbox.clear()
    assert send(receiver, raw, address) == "refused-game-over"
    [answer] = sent("reply_answer")
    assert "This game is over" in answer.body and "not your turn" not in answer.body


def test_confirmations_can_be_turned_off(receiver, table):
    preferences.choose(table.ada.email, emails.REPLY_PLAYED, preferences.Choice.STOP_KIND)
    raw = raw_reply(sender=table.ada.email, to=table.reply_to, first_lines="1")
    mail.outbox.clear()
    assert send(receiver, raw, table.reply_to) == "played"
    assert sent("reply_played") == []
    row = Message.objects.get(kind=emails.REPLY_PLAYED)
    assert row.status == Message.Status.SUPPRESSED


def test_a_german_players_refusal_is_all_german(receiver):
    table = Table(language="de")
    old = reply_addresses.reply_address(table.bea, table.version)
    state = load_state(table.game)
    submit_move(table.game, table.ada, greedy_move(state, table.ada.position), table.game.version)
    raw = raw_reply(sender=table.bea.email, to=old, first_lines="1", client="gmail-de")
    mail.outbox.clear()
    assert send(receiver, raw, old, envelope_from=table.bea.email) == "refused-stale"
    [answer] = sent("reply_answer")
    with translation.override("de"):
        assert gettext("The game moved on after the email you answered.") in answer.body
    assert "The game moved on" not in answer.body


@pytest.mark.parametrize("join", [" and", ";", ","])
def test_a_two_line_move_broken_after_its_join_is_played_whole_or_refused(receiver, join):
    """The mail program broke the line just after the join: both lines are played, and
    when the second cannot be read, nothing is (never the first line alone)."""
    table = Table(turns=3)
    state = load_state(table.game)
    move = two_line_move(state)
    first, second = (
        places.line_name(state.board, state.board.line_id(line)) for line in move.lines
    )
    broken = raw_reply(
        sender=table.ada.email, to=table.reply_to, first_lines=f"move: {first}{join}\nAtlantis"
    )
    mail.outbox.clear()
    assert send(receiver, broken, table.reply_to) == "refused-unclear"
    assert not table.moved()
    raw = raw_reply(
        sender=table.ada.email, to=table.reply_to, first_lines=f"move: {first}{join}\n{second}"
    )
    assert send(receiver, raw, table.reply_to) == "played"
    built = table.game.engine_events()[-1]
    assert len(built["lines"]) == 2
