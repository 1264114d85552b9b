"""Channels besides email (notifications.channels, through Apprise), against local HTTP
servers that check each self-hostable service's documented request: ntfy (JSON publish,
https://docs.ntfy.sh/publish/#publish-as-json), Gotify (POST /message with the app token,
https://gotify.net/docs/pushmsg) and Apprise's JSON webhook. Discord, Slack and Telegram
are checked by URL only (their servers are not ours to run)."""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from games.services import load_state
from notifications import channels
from tests.conftest import play_turn
from tests.factories import GameFactory

pytestmark = pytest.mark.django_db


class Service:
    """A local HTTP server that keeps each request (path, headers, JSON body) and answers
    as the real service does."""

    def __init__(self, answer: bytes = b"{}", hang: float = 0):
        requests = self.requests = []
        # A hanging answer ends early when the server closes: the test is done with it.
        closing = self.closing = threading.Event()

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = self.rfile.read(length)
                requests.append((self.path, dict(self.headers), json.loads(body or b"{}")))
                if hang and closing.wait(hang):
                    return  # the client gave up long ago
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_port
        # Polled often, so that closing it (shutdown) takes no half second.
        serve = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        serve.start()

    def close(self):
        self.closing.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def service():
    made = []

    def start(**kwargs) -> Service:
        made.append(Service(**kwargs))
        return made[-1]

    yield start
    for server in made:
        server.close()


@pytest.fixture
def private_allowed(settings):
    settings.RAILMAIL_CHANNELS_ALLOW_PRIVATE = True


@pytest.fixture
def game():
    game = GameFactory()
    for _ in range(4):
        game = play_turn(game)
    return game


def no_hand_in(text: str, game) -> None:
    """No seat's hand in ``text``: not its cities as a list, nor any word of a hand."""
    state = load_state(game)
    for hand in state.hands:
        assert ", ".join(hand) not in text
        assert sum(city in text for city in hand) < len(hand)
    assert "missing" not in text.lower() and "suggest" not in text.lower()


def test_ntfy_gets_a_json_publish_with_topic_title_and_message(service, private_allowed, game):
    ntfy = service(answer=b'{"id":"x","event":"message"}')
    seat = game.seats.get(position=game.seat_to_move)
    url = channels.check_url(f"ntfy://127.0.0.1:{ntfy.port}/railmail-ada")
    notice = channels.turn_notice(game, seat)
    assert channels.send(url, notice)
    [(path, headers, body)] = ntfy.requests
    assert path == "/" and headers["Content-Type"] == "application/json"
    assert body["topic"] == "railmail-ada"
    assert body["title"] == notice.title and body["message"] == notice.body
    assert "/s/" in body["message"]  # a personal channel may carry the seat's link
    no_hand_in(json.dumps(body), game)


def test_gotify_gets_a_message_with_its_app_token(service, private_allowed, game):
    gotify = service(answer=b'{"id":1}')
    url = channels.check_url(f"gotify://127.0.0.1:{gotify.port}/AppToken123")
    notice = channels.turn_notice(game)  # the table's: no link
    assert channels.send(url, notice)
    [(path, headers, body)] = gotify.requests
    assert path == "/message" and headers["X-Gotify-Key"] == "AppToken123"
    assert body["title"] == notice.title and body["message"] == notice.body
    assert isinstance(body["priority"], int)
    assert "/s/" not in body["message"] and "http" not in body["message"]
    no_hand_in(json.dumps(body), game)


def test_a_json_webhook_gets_title_message_and_type(service, private_allowed, game):
    hook = service()
    url = channels.check_url(f"json://127.0.0.1:{hook.port}/hooks/railmail")
    notice = channels.turn_notice(game)
    assert channels.send(url, notice)
    [(path, headers, body)] = hook.requests
    assert path == "/hooks/railmail" and headers["Content-Type"] == "application/json"
    assert body["title"] == notice.title and body["message"] == notice.body
    assert body["type"] == "info"
    no_hand_in(json.dumps(body), game)


def test_the_table_hears_what_was_played_and_whose_turn_it_is(game):
    state = load_state(game)
    notice = channels.turn_notice(game)
    names = game.seat_names()
    assert notice.body.endswith(f"{names[state.seat_to_move]} is to move.")
    assert len(notice.body.splitlines()) >= 2  # the moves since, in words


def test_a_service_that_hangs_is_given_up_within_ten_seconds(service, private_allowed, monkeypatch):
    # A send waits at most ten seconds: to connect, then for the answer.
    assert channels.CONNECT_TIMEOUT + channels.READ_TIMEOUT <= 10
    # It gives up at the read timeout it sets, here half a second: before this service
    # answers, 3 s on (Apprise's own default, 4 s, would have waited for the answer).
    monkeypatch.setattr(channels, "READ_TIMEOUT", 0.5)
    slow = service(hang=3)
    started = time.monotonic()
    sent = channels.send(f"json://127.0.0.1:{slow.port}/", channels.Notice("t", "b"))
    assert not sent
    assert len(slow.requests) == 1
    assert time.monotonic() - started >= 0.5


def test_a_service_that_is_down_is_a_failed_send_not_an_error(private_allowed):
    from tests.faults import closed_port

    assert not channels.send(f"json://127.0.0.1:{closed_port()}/", channels.Notice("t", "b"))


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com/hook",
        "mailto://user:pass@example.com",
        "windows://",
        "syslog://",
        "not a url",
    ],
)
def test_only_chat_and_push_services_are_taken(url):
    with pytest.raises(channels.ChannelRefused, match="Only ntfy"):
        channels.check_url(url)


@pytest.mark.parametrize(
    "url",
    [
        "ntfy://127.0.0.1/topic",
        "json://localhost:8080/",
        "gotify://10.1.2.3/token",
        "jsons://192.168.0.5/hook",
        "ntfys://[::1]/topic",
        "mmost://169.254.169.254/token",
    ],
)
def test_private_and_loopback_addresses_are_refused_unless_allowed(url, settings):
    settings.RAILMAIL_CHANNELS_ALLOW_PRIVATE = False
    with pytest.raises(channels.ChannelRefused, match="Private and local"):
        channels.check_url(url)
    settings.RAILMAIL_CHANNELS_ALLOW_PRIVATE = True
    assert channels.check_url(url) == url


@pytest.mark.parametrize(
    "url",
    [
        "tgram://123456789:AAHsecretbottoken/987654321",
        "discord://112233445566/secretWebhookToken",
        "slack://T1JJ3T3L2/A1BRTD4JD/TIiajkdnlazkcOXrIdevi7FQ",
    ],
)
def test_hosted_services_are_checked_by_url_only(url):
    assert channels.check_url(url) == url
    shown = channels.masked(url)
    assert shown == url.split("://")[0] + "://…"


def test_a_masked_url_never_shows_a_secret():
    assert channels.masked("ntfys://ntfy.sh/secret-topic") == "ntfys://ntfy.sh/…"
    assert channels.masked("gotify://push.example.org/AppTokenXYZ") == "gotify://push.example.org/…"
    assert "pass" not in channels.masked("matrixs://user:pass@matrix.org/#room")


def test_apprises_logger_never_logs_urls(private_allowed, caplog):
    import logging

    from tests.mail_servers import recording_api

    assert logging.getLogger("apprise").getEffectiveLevel() >= logging.WARNING
    # A refused send: Apprise's own warning names the topic (an ntfy topic is its secret).
    with recording_api(500) as (base, _requests), caplog.at_level(logging.DEBUG):
        url = base.replace("http://", "ntfy://") + "secret-topic-4711"
        assert not channels.send(channels.check_url(url), channels.Notice("t", "b"))
    assert any(r.name == "apprise" and r.levelno >= logging.WARNING for r in caplog.records)
    assert "secret-topic-4711" not in caplog.text and str(url) not in caplog.text


def test_a_send_is_refused_when_the_host_is_private_by_then(service, settings):
    # Taken while allowed (as a public name that later points home would be), then sent
    # when private addresses are not allowed: nothing leaves.
    hook = service()
    settings.RAILMAIL_CHANNELS_ALLOW_PRIVATE = True
    url = channels.check_url(f"json://127.0.0.1:{hook.port}/")
    settings.RAILMAIL_CHANNELS_ALLOW_PRIVATE = False
    assert not channels.send(url, channels.Notice("t", "b"))
    assert not hook.requests
