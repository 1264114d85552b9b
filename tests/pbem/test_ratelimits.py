"""Rate limits on everything that sends email (issue 13): sign-in, fresh links, new games,
their invitations and reminders; per address, per client and per account, with a 429
page when hit. Each test's limits count under keys of its own (tests/conftest.py)."""

import pytest
import redis
from django.core.cache import caches
from django.test import Client
from django.urls import reverse

from games.links import seat_path
from games.models import Game
from notifications.models import Message
from pbem import ratelimits
from tests.factories import GameFactory, UserFactory
from tests.games.views.test_setup import new_game_data
from tests.real_worker import REDIS_URL, redis_is_up

pytestmark = pytest.mark.django_db


def login(client, email, **extra):
    return client.post(reverse("accounts:login"), {"email": email}, **extra)


def sign_in_links() -> int:
    return Message.objects.filter(kind="login_link").count()


def test_sign_in_is_limited_per_address(client):
    limit = int(ratelimits.RATES["login-address"].split("/")[0])
    for _ in range(limit):
        assert login(client, "ada@example.org").status_code == 302
    written = sign_in_links()
    response = login(client, "ADA@example.org")  # the same address, however written
    assert response.status_code == 429
    assert "Too many requests" in response.content.decode()
    assert response["Retry-After"]
    assert sign_in_links() == written
    # Another address from another client is not held up.
    assert login(Client(REMOTE_ADDR="10.0.0.2"), "grace@example.org").status_code == 302


def test_sign_in_is_limited_per_client(client, settings):
    settings.RAILMAIL_RATE_LIMITS = {"login-client": "3/h"}
    for n in range(3):
        assert login(client, f"player{n}@example.org").status_code == 302
    assert login(client, "player9@example.org").status_code == 429
    assert not Message.objects.filter(to="player9@example.org").exists()
    assert login(Client(REMOTE_ADDR="10.0.0.2"), "player9@example.org").status_code == 302


def test_the_client_is_the_address_the_trusted_proxy_saw(settings):
    settings.RAILMAIL_RATE_LIMITS = {"login-client": "2/h"}
    settings.RAILMAIL_CLIENT_IP_HEADER = "HTTP_X_FORWARDED_FOR"
    client = Client(REMOTE_ADDR="127.0.0.1")  # the proxy, for every request
    # Whatever the client puts first, the proxy's own entry (the last) counts.
    for n, spoofed in enumerate(["1.1.1.1", "2.2.2.2"]):
        forwarded = f"{spoofed}, 203.0.113.7"
        response = login(client, f"p{n}@example.org", HTTP_X_FORWARDED_FOR=forwarded)
        assert response.status_code == 302
    blocked = login(client, "p3@example.org", HTTP_X_FORWARDED_FOR="3.3.3.3, 203.0.113.7")
    assert blocked.status_code == 429
    other = login(client, "p4@example.org", HTTP_X_FORWARDED_FOR="203.0.113.8")
    assert other.status_code == 302


def test_the_client_address_defaults_to_remote_addr(rf):
    request = rf.get("/", REMOTE_ADDR="192.0.2.1", HTTP_X_FORWARDED_FOR="6.6.6.6")
    assert ratelimits.client_ip(request) == "192.0.2.1"


def test_fresh_links_are_limited_per_seat_even_through_a_revoked_link(client):
    game = GameFactory()
    seat = game.seats.get(position=0)
    token = seat_path(seat).split("/")[2]
    url = reverse("games:fresh_link", args=[token])
    limit = int(ratelimits.RATES["fresh-link-seat"].split("/")[0])
    answers = [
        Client(REMOTE_ADDR=f"10.0.1.{n}").post(url, {"email": seat.email}).status_code
        for n in range(limit + 3)
    ]
    assert answers == [200] * limit + [429] * 3
    fresh = Message.objects.filter(kind="invitation", to=seat.email)
    assert fresh.count() == limit
    # And the player's own link still works: asking never revoked it.
    assert client.get(seat_path(seat)).status_code == 200


def test_fresh_links_are_limited_per_client(settings):
    settings.RAILMAIL_RATE_LIMITS = {"fresh-link-client": "2/h"}
    client = Client(REMOTE_ADDR="10.0.2.1")
    game = GameFactory()
    answers = []
    for seat in game.seats.all():
        url = reverse("games:fresh_link", args=[seat_path(seat).split("/")[2]])
        answers.append(client.post(url, {"email": seat.email}).status_code)
    assert answers == [200, 200, 429]


@pytest.fixture
def creator(client):
    user = UserFactory(name="Mallory")
    client.force_login(user)
    return user


def invitations_to(address: str) -> int:
    return Message.objects.filter(kind="invitation", to=address).count()


def test_a_stranger_gets_at_most_three_invitations_a_day_and_the_creator_is_told(client, creator):
    for n in range(3):
        response = client.post(reverse("games:new"), new_game_data(title=f"Game {n}"))
        assert response.status_code == 302
    assert invitations_to("ada@example.com") == 3
    response = client.post(reverse("games:new"), new_game_data(title="Game 4"), follow=True)
    assert response.status_code == 200
    page = response.content.decode()
    assert "Not invited" in page and "Ada (ada@example.com)" in page
    assert invitations_to("ada@example.com") == 3
    # The game is there, the seat waiting: its creator may remind them later.
    game = Game.objects.get(title="Game 4")
    assert game.seats.get(email="ada@example.com").joined_at is None
    # Reminding is an invitation too, and is refused as well.
    ada = game.seats.get(email="ada@example.com")
    response = client.post(reverse("games:remind", args=[game.pk, ada.position]), follow=True)
    assert "Not invited" in response.content.decode()
    assert invitations_to("ada@example.com") == 3


def test_someone_who_played_with_the_address_is_not_held_to_the_stranger_limit(client, creator):
    # Ada joined one of the creator's games: they have played together.
    client.post(reverse("games:new"), new_game_data(title="First"))
    first = Game.objects.get(title="First")
    Client().post(
        reverse("games:join", args=[seat_path(first.seats.get(name="Ada")).split("/")[2]])
    )
    for n in range(4):
        client.post(reverse("games:new"), new_game_data(title=f"Game {n}"))
    assert invitations_to("ada@example.com") == 5


def test_replacing_a_player_with_an_address_over_its_limit_is_refused(client, creator):
    for n in range(3):
        client.post(
            reverse("games:new"),
            new_game_data(title=f"G{n}", **{"players-0-email": "eve@example.com"}),
        )
    client.post(reverse("games:new"), new_game_data(title="Last"))
    game = Game.objects.get(title="Last")
    ada = game.seats.get(name="Ada")
    response = client.post(
        reverse("games:replace", args=[game.pk, ada.position]),
        {"name": "Eve", "email": "eve@example.com"},
    )
    assert response.status_code == 429
    assert "too many invitations" in response.content.decode()
    ada.refresh_from_db()
    assert ada.email == "ada@example.com"


def test_new_games_are_limited_per_account(client, creator, settings):
    settings.RAILMAIL_RATE_LIMITS = {"invite-account": "2/h"}
    answers = [
        client.post(reverse("games:new"), new_game_data(title=f"G{n}")).status_code
        for n in range(3)
    ]
    assert answers == [302, 302, 429]
    assert Game.objects.count() == 2


@pytest.mark.postgres
@pytest.mark.skipif(not redis_is_up(), reason=f"needs Redis at {REDIS_URL}")
def test_the_limits_count_in_redis_shared_by_every_web_process(settings):
    """Production's cache: two clients (as two web processes would) share one count."""
    settings.CACHES = {
        **settings.CACHES,
        "ratelimit": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "railmail-test-ratelimit",
        },
    }
    settings.RAILMAIL_RATE_LIMITS = {"login-address": "2/h"}
    first, second = Client(REMOTE_ADDR="10.0.3.1"), Client(REMOTE_ADDR="10.0.3.2")
    assert login(first, "ada@example.org").status_code == 302
    assert login(second, "ada@example.org").status_code == 302
    assert login(first, "ada@example.org").status_code == 429
    assert type(caches["ratelimit"]).__name__ == "RedisCache"
    server = redis.Redis.from_url(REDIS_URL)
    keys = server.keys("railmail-test-ratelimit:*rl:test-*")
    assert keys  # the counts are in Redis, where every web process reads them
    server.delete(*keys)


def test_the_local_file_cache_is_shared_by_processes(settings, tmp_path, rf):
    """The embedded default: another process's requests count against the same limit, as
    those of `runserver` and `run_periodic`, or several local web processes, would."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    settings.CACHES = {
        **settings.CACHES,
        "ratelimit": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(tmp_path / "ratelimit"),
        },
    }
    settings.RAILMAIL_RATE_LIMITS = {"login-address": "3/h"}
    other_process = (
        "import django; django.setup()\n"
        "from django.conf import settings\n"
        "from django.test import RequestFactory\n"
        "from pbem import ratelimits\n"
        f"settings.CACHES['ratelimit']['LOCATION'] = {str(tmp_path / 'ratelimit')!r}\n"
        f"settings.RATELIMIT_CACHE_PREFIX = {settings.RATELIMIT_CACHE_PREFIX!r}\n"
        "settings.RAILMAIL_RATE_LIMITS = {'login-address': '3/h'}\n"
        "request = RequestFactory().post('/accounts/login/')\n"
        "print([ratelimits.hit(request, 'login-address', 'ada@example.org') for _ in range(3)])\n"
    )
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "pbem.settings"}
    env.pop("DATABASE_URL", None)
    result = subprocess.run(
        [sys.executable, "-c", other_process],
        env=env, cwd=root, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.stdout.strip() == "[False, False, False]", result.stderr
    # Three counted over there: the fourth, here, is over the limit.
    assert ratelimits.hit(rf.post("/accounts/login/"), "login-address", "ada@example.org")


@pytest.mark.postgres
def test_with_the_limits_redis_down_signing_in_still_works(settings, caplog):
    """In production the rate limits' Redis is the broker's: when it restarts, people can
    still sign in (their email waits in the outbox), and the outage is logged."""
    from tests.faults import closed_port

    settings.CACHES = {
        **settings.CACHES,
        "ratelimit": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{closed_port()}/12",
        },
    }
    response = login(Client(), "ada@example.org")
    assert response.status_code == 302
    assert "the cache is unreachable" in caplog.text
