"""Hostile input never answers 500 (issue 13): a bounded property-based fuzz (hypothesis)
of the move endpoint and of every form, with text full of control characters, huge and
negative numbers, and fields that do not belong.

Each test sends at most MAX_EXAMPLES requests; rate limits are raised out of the way so
that the forms themselves are exercised.
"""

import pytest
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.models import User
from games.links import seat_path
from games.services import SeatSpec, create_game
from pbem.ratelimits import RATES
from tests.factories import GameFactory, UserFactory

pytestmark = pytest.mark.django_db

MAX_EXAMPLES = 40
fuzz = settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# Any text, control characters (newlines, NUL, escape) and odd Unicode included.
text = st.one_of(
    st.text(st.characters(exclude_categories=("Cs",)), max_size=60),
    st.sampled_from(
        ["", "0", "-1", "99999999999999999999", "1e9", "a\r\nBcc: x@example.org", "\x00",
         "ada@example.com", "ADA@example.com\n", "../../etc/passwd", "<script>x</script>",
         "1; DROP TABLE games_game", "None", "true", "on", " ", "\u2028", "😀" * 30]
    ),
)  # fmt: skip
numbers = st.one_of(st.integers(-(2**70), 2**70).map(str), text)


def form(fields: list[str], values=text) -> st.SearchStrategy[dict]:
    """A POST body: some of ``fields`` (any may be missing), plus an unknown one."""
    return st.dictionaries(st.sampled_from([*fields, "unknown"]), values, max_size=len(fields) + 1)


@pytest.fixture(autouse=True)
def no_rate_limits(settings):
    settings.RAILMAIL_RATE_LIMITS = dict.fromkeys(RATES, "1000000/h")


def assert_no_server_error(response):
    assert response.status_code < 500, response.content[:500]


@pytest.fixture
def game():
    return GameFactory()


@fuzz
@given(
    data=form(
        ["version", "point", "line1", "line2", "colour1", "colour2", "pass_turn"],
        values=numbers,
    )
)
def test_the_move_endpoint(game, data):
    seat = game.seats.get(position=game.seat_to_move)
    assert_no_server_error(Client().post(seat_path(seat), data))


@fuzz
@given(data=form(["email", "next"]))
def test_the_sign_in_form(data):
    assert_no_server_error(Client().post(reverse("accounts:login"), data))


@fuzz
@given(data=form(["email"]), token=st.one_of(text, st.just("")))
def test_the_fresh_link_form(game, data, token):
    seat = game.seats.first()
    real = seat_path(seat).split("/")[2]
    url = f"/s/{token or real}/fresh-link/"
    assert_no_server_error(Client().post(url, data))


NEW_GAME = [
    "title", "board", "exclusive_tracks", "cities_must_join_start", "time_per_move",
    "reminder_hours", "on_timeout", "bot_takeover_after", "creator_plays", "start_when",
    "players-TOTAL_FORMS", "players-INITIAL_FORMS", "players-MIN_NUM_FORMS",
    "players-MAX_NUM_FORMS", "players-0-name", "players-0-email", "players-0-bot",
    "players-1-name", "players-1-email", "players-1-bot",
]  # fmt: skip


@pytest.fixture
def signed_in():
    client = Client()
    client.force_login(UserFactory())
    return client


@fuzz
@given(data=form(NEW_GAME, values=numbers))
def test_the_new_game_form(signed_in, data):
    assert_no_server_error(signed_in.post(reverse("games:new"), data))


@fuzz
@given(data=form(["name", "email"]))
def test_the_replace_player_form(signed_in, data):
    user = User.objects.get(pk=signed_in.session["_auth_user_id"])
    players = [SeatSpec("Me", user.email, user), SeatSpec("Ada", "ada@example.com", joined=False)]
    game = create_game("transamerica", None, players, created_by=user)
    url = reverse("games:replace", args=[game.pk, 1])
    response = signed_in.post(url, data)
    assert_no_server_error(response)
    assert response.status_code in (302, 400)  # the form itself was reached


@fuzz
@given(data=form(["name", "email_mode", "reminders", "timezone"]))
def test_the_preferences_form(signed_in, data):
    assert_no_server_error(signed_in.post(reverse("accounts:preferences"), data))


@fuzz
@given(data=form(["days"], values=numbers))
def test_the_vacation_form(signed_in, data):
    assert_no_server_error(signed_in.post(reverse("notifications:vacation"), data))


@fuzz
@given(data=form(["token", "next"]))
def test_the_resume_mail_form(data):
    assert_no_server_error(Client().post(reverse("notifications:resume"), data))


@fuzz
@given(token=text.filter(lambda t: "/" not in t and t.strip()))
def test_the_unsubscribe_and_sign_in_links(token):
    for name in ("notifications:unsubscribe", "accounts:login_confirm"):
        try:
            url = reverse(name, args=[token])
        except Exception:  # a token that cannot be part of a URL at all
            continue
        assert_no_server_error(Client().get(url))
        assert_no_server_error(Client().post(url))


@fuzz
@given(params=form(["player", "page", "move"], values=numbers))
def test_the_history_and_replay_queries(game, params):
    assert_no_server_error(Client().get(reverse("games:history"), params))
    token = seat_path(game.seats.first()).split("/")[2]
    assert_no_server_error(Client().get(reverse("games:seat_replay", args=[token]), params))
