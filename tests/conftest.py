import uuid

import pytest
from django.conf import settings
from django.core import mail
from django.core.cache import cache
from django.db import connections
from django.test import override_settings

from accounts.models import User
from games.bots import greedy_move
from games.derived import snapshots
from games.services import load_state, submit_move

ON_POSTGRES = settings.DATABASES["default"]["ENGINE"] == "helpers.postgresql"
if ON_POSTGRES:
    # Set before any connection is made; the processes the tests start keep the project's.
    # The test databases are thrown away, so a commit need not wait for its WAL to reach
    # the disk; and transactional tests are emptied by DELETE, not TRUNCATE.
    settings.DATABASES["default"]["OPTIONS"]["options"] = "-c synchronous_commit=off"
    settings.DATABASES["default"]["ENGINE"] = "tests.deleting_postgresql"
    del connections["default"]  # made (not connected) with the project's backend


# Fixtures that give a test the database: a test without them (or the django_db mark)
# touches none.
DATABASE_FIXTURES = {"db", "transactional_db", "live_server", "admin_user", "admin_client"}


def needs_database(item) -> bool:
    return item.get_closest_marker("django_db") is not None or bool(
        DATABASE_FIXTURES & set(item.fixturenames)
    )


# Tests that use the database and run in both passes: their queries are ones whose meaning
# could differ between SQLite and PostgreSQL (JSON in subqueries, case-insensitive
# addresses, the scans' index conditions, migrations, what a cache warmed on one backend
# shows). Every other database test runs once, on SQLite: the suite must stay under five
# minutes on a 2-core machine, and the PostgreSQL pass's real components (the browser
# playing whole games, the game played by email on the installed wheel, the worker) take
# most of it and go through the same queries on PostgreSQL.
BOTH_DATABASES = (
    "tests/test_migrations.py",
    "tests/accounts/test_models.py",
    "tests/accounts/test_language.py",
    "tests/games/test_scan.py",
    "tests/games/services/test_moves.py",
    "tests/games/test_hidden_information.py",
    "tests/games/services/test_talk.py",
    "tests/helpers/test_compiled_queries.py",
    "tests/helpers/test_claims.py",
    "tests/games/pages/test_table_read.py",
    "tests/games/pages/test_page_cache.py",
    "tests/notifications/test_views.py",
    "tests/notifications/test_digests.py",
    "tests/notifications/test_emails.py",
    "tests/notifications/test_outbox.py",
    "tests/notifications/test_compose.py",
    "tests/notifications/test_receivers.py",
    # JSON lookups of the log (who agreed, who left), and channel notices inserted with
    # the events in the claim's one statement on PostgreSQL.
    "tests/games/services/test_consent.py",
    "tests/games/services/test_substitutes.py",
    "tests/notifications/test_channel_delivery.py",
)


def runs_on_both(item) -> bool:
    return item.nodeid.split("::")[0] in BOTH_DATABASES


def pytest_collection_modifyitems(config, items):
    """`make test` runs the suite twice; each test runs in the pass where it proves something.

    The SQLite pass (the embedded default) runs everything but the tests marked
    ``postgres``, which need PostgreSQL itself or the real components (Redis, a worker, a
    browser, a mail server). The PostgreSQL pass runs those, and the database tests of
    BOTH_DATABASES.
    """
    if ON_POSTGRES:
        keep = [
            item
            for item in items
            if "postgres" in item.keywords or (runs_on_both(item) and needs_database(item))
        ]
        dropped = [item for item in items if item not in keep]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = keep
        return
    skip = pytest.mark.skip(
        reason="runs in the PostgreSQL pass (PostgreSQL or real components): set "
        "DATABASE_URL=postgres://... or run `make test`"
    )
    for item in items:
        if "postgres" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session", autouse=True)
def quick_password_hashing():
    """Passwords hashed with one round of MD5: Django's default hasher takes ~0.3 s of CPU
    per password by design, and the factories give every account one. The tests of
    passwords (set, checked, case of the address) prove the same with any hasher; the
    site itself keeps Django's default (pbem/settings.py sets none)."""
    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture(scope="session")
def rate_limit_files(tmp_path_factory):
    return tmp_path_factory.mktemp("ratelimit")


@pytest.fixture(autouse=True)
def rate_limits_of_its_own(settings, rate_limit_files):
    """Each test counts its rate limits under keys of its own: the cache may be shared by
    the parallel test processes (Redis), which must not trip each other. The local file
    cache is the test run's own, not the developer's var/."""
    settings.RATELIMIT_CACHE_PREFIX = f"rl:test-{uuid.uuid4().hex}:"
    if settings.CACHES["ratelimit"]["BACKEND"].endswith("FileBasedCache"):
        settings.CACHES = {
            **settings.CACHES,
            "ratelimit": {**settings.CACHES["ratelimit"], "LOCATION": str(rate_limit_files)},
        }


@pytest.fixture
def anymail_backend(settings):
    """Send through anymail's test backend: it keeps each email's tags (its kind)."""
    settings.EMAIL_BACKEND = "anymail.backends.test.EmailBackend"


def sent(kind: str) -> list:
    """The emails of one kind sent so far (with ``anymail_backend``)."""
    return [m for m in mail.outbox if m.tags == [kind]]


@pytest.fixture
def staff_client(client):
    """A test client logged in as a superuser."""
    client.force_login(User.objects.create_superuser("admin@example.com", "pass-word-1"))
    return client


def delivered(message):
    """Build and send an outbox row as a worker does once it is due; return the row then."""
    from notifications import outbox

    message.refresh_from_db()
    outbox.deliver(message.pk, now=message.next_attempt_at)
    message.refresh_from_db()
    return message


def play_turn(game):
    """Play one greedy move for whoever is to move; return the updated game."""
    state = load_state(game)
    seat = game.seats.get(position=state.seat_to_move)
    return submit_move(game, seat, greedy_move(state, seat.position), game.version)


@pytest.fixture
def turn_emails_at_once(settings):
    """Your-turn emails go out with the commit, as with no grace period, for the tests that
    read them. Elsewhere they wait out the site's grace, as in production, and are never
    composed: composing one (the picture of the board, the strong bot's suggestions) costs
    more than most tests."""
    settings.RAILMAIL_TURN_EMAIL_GRACE = 0


@pytest.fixture(autouse=True)
def no_default_quiet_hours(settings):
    """Turns are timed without the site's default quiet hours: the tests of quiet hours
    (tests/games/derived/test_sleep.py) set their own."""
    settings.RAILMAIL_QUIET_HOURS = ("", "")


@pytest.fixture(autouse=True)
def empty_cache():
    """Each test starts with empty caches: pages it renders are rendered, not served from
    another test's cache (whose keys could not match anyway, but whose templates' contexts
    a test may read), and the states it reads are built from its own logs."""
    cache.clear()
    snapshots.forget_all()
