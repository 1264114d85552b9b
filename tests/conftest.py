import pytest
from django.conf import settings

from accounts.models import User
from games.bots import greedy_move
from games.services import load_state, submit_move

ON_POSTGRES = settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"


def pytest_collection_modifyitems(config, items):
    if ON_POSTGRES:
        return
    skip = pytest.mark.skip(
        reason="needs PostgreSQL (triggers, row locks): set DATABASE_URL=postgres://... "
        "or run `make test`"
    )
    for item in items:
        if "postgres" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def staff_client(client):
    """A test client logged in as a superuser."""
    client.force_login(User.objects.create_superuser("admin@example.com", "pass-word-1"))
    return client


def play_turn(game):
    """Play one greedy move for whoever is to move; return the updated game."""
    state = load_state(game)
    seat = game.seats.get(position=state.seat_to_move)
    return submit_move(game, seat, greedy_move(state, seat.position), game.version)
