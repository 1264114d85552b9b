import re

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from games import links
from games.links import seat_for_token, seat_path, seat_url
from games.models import Game
from games.words import bot_levels
from notifications.models import Message
from tests.conftest import delivered, sent
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def new_game_data(**changes):
    data = {
        "title": "Friday game",
        "board": "transamerica",
        "time_per_move": "48",
        "reminder_hours": ["24", "2"],
        "on_timeout": "bot",
        "bot_takeover_after": "3",
        "creator_plays": "on",
        "start_when": "accepted",
        "time_zone": "Europe/Berlin",
        "players-TOTAL_FORMS": "5",
        "players-INITIAL_FORMS": "0",
        "players-MIN_NUM_FORMS": "0",
        "players-MAX_NUM_FORMS": "6",
        "players-0-name": "Ada",
        "players-0-email": "ada@example.com",
        "players-1-name": "",
        "players-1-email": "",
        "players-1-bot": "greedy",
    }
    data.update(changes)
    return data


def nonce_of(path: str) -> str:
    """The seat nonce a link carries."""
    return links.read_token(path.split("/")[2]).nonce


def page_text(response, address):
    """The page without the address typed and without the (per-response) CSRF tokens."""
    text = response.content.decode().replace(address, "")
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", text)


@pytest.fixture
def creator(client):
    user = UserFactory(name="Grace")
    client.force_login(user)
    return user


def test_creating_a_game_needs_an_account(client):
    response = client.get(reverse("games:new"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("accounts:login"))


def test_a_new_game_keeps_the_time_zone_its_creator_chose(client, creator):
    form = client.get(reverse("games:new")).content.decode()
    assert 'value="UTC" selected' in form  # the creator's own zone, to start with
    client.post(reverse("games:new"), new_game_data(start_when="now"))
    assert Game.objects.get().time_zone == "Europe/Berlin"
    refused = client.post(reverse("games:new"), new_game_data(time_zone="Mars/Olympus"))
    assert refused.status_code == 200 and "Select a valid choice" in refused.content.decode()


def test_creating_a_game_invites_the_players(client, creator, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("games:new"), new_game_data())
    game = Game.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("games:manage", args=[game.pk])
    me, ada, bot = game.seats.all()
    assert (me.user, me.joined_at is not None) == (creator, True)
    assert (ada.email, ada.joined_at) == ("ada@example.com", None)
    assert (bot.is_bot, bot.bot_level, bot.joined_at is not None) == (True, "greedy", True)
    assert game.status == Game.Status.SETUP
    assert game.title == "Friday game"
    assert game.time_per_move.total_seconds() == 48 * 3600
    assert game.reminder_hours == [24, 2]
    assert list(Message.objects.filter(kind="invitation").values_list("to", flat=True)) == [
        "ada@example.com"
    ]
    assert [m.to for m in mail.outbox] == [["ada@example.com"]]
    # A seat's link is the same whenever it is made: the email holds the very one.
    link = re.search(r"https?://\S+/s/([^/\s]+)/", mail.outbox[0].body)
    assert link and link.group(0) == seat_url(ada)
    assert seat_for_token(link.group(1)) == ada


def test_the_game_starts_when_the_last_invited_player_joins(client, creator):
    client.post(reverse("games:new"), new_game_data())
    game = Game.objects.get()
    ada = game.seats.get(name="Ada")
    page = client.get(seat_path(ada))
    assert b"Join this game" in page.content
    game.refresh_from_db()
    assert game.status == Game.Status.SETUP  # GET changes nothing
    response = client.post(reverse("games:join", args=[seat_path(ada).split("/")[2]]))
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert game.round == 1


def test_start_at_once(client, creator):
    client.post(reverse("games:new"), new_game_data(start_when="now"))
    assert Game.objects.get().status == Game.Status.ACTIVE


def test_a_game_needs_two_players(client, creator):
    data = new_game_data(**{"players-0-email": "", "players-0-name": "", "players-1-bot": ""})
    response = client.post(reverse("games:new"), data)
    assert response.status_code == 200
    assert b"2 to 6 players" in response.content
    assert not Game.objects.exists()


def test_a_person_needs_an_address(client, creator):
    response = client.post(reverse("games:new"), new_game_data(**{"players-0-email": ""}))
    assert b"email address, or choose a bot" in response.content
    assert not Game.objects.exists()


def test_the_creator_reminds_and_replaces_an_invited_player(client, creator):
    client.post(reverse("games:new"), new_game_data())
    game = Game.objects.get()
    ada = game.seats.get(name="Ada")
    old_link = seat_path(ada)
    response = client.post(reverse("games:remind", args=[game.pk, ada.position]))
    assert response.status_code == 302
    assert Message.objects.filter(kind="invitation", to="ada@example.com").count() == 2

    response = client.post(
        reverse("games:replace", args=[game.pk, ada.position]),
        {"name": "Alan", "email": "alan@example.com"},
    )
    assert response.status_code == 302
    ada.refresh_from_db()
    assert (ada.name, ada.email) == ("Alan", "alan@example.com")
    assert client.get(old_link).status_code == 403
    assert Message.objects.filter(kind="invitation", to="alan@example.com").count() == 1


def test_only_the_creator_manages_a_game(client, creator):
    client.post(reverse("games:new"), new_game_data())
    game = Game.objects.get()
    client.force_login(UserFactory())
    assert client.get(reverse("games:manage", args=[game.pk])).status_code == 404
    assert client.post(reverse("games:start", args=[game.pk])).status_code == 404
    game.refresh_from_db()
    assert game.status == Game.Status.SETUP


def test_the_creator_starts_now(client, creator):
    client.post(reverse("games:new"), new_game_data())
    game = Game.objects.get()
    response = client.post(reverse("games:start", args=[game.pk]))
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE


def test_a_fresh_link_goes_only_to_the_seats_address(client, creator):
    client.post(reverse("games:new"), new_game_data(start_when="now"))
    game = Game.objects.get()
    client.get(reverse("games:manage", args=[game.pk]))  # shows (and so clears) the message
    ada = game.seats.get(name="Ada")
    old = seat_path(ada)
    token = old.split("/")[2]
    wrong = client.post(reverse("games:fresh_link", args=[token]), {"email": "eve@example.com"})
    right = client.post(reverse("games:fresh_link", args=[token]), {"email": "ADA@example.com"})
    # The same answer either way: nobody learns who plays in the game.
    assert wrong.status_code == right.status_code == 200
    assert page_text(wrong, "eve@example.com") == page_text(right, "ADA@example.com")
    # The fresh link is mailed; the old one works until the fresh one is used.
    assert client.get(old).status_code == 200
    assert Message.objects.filter(kind="invitation", to="ada@example.com").count() == 2
    fresh = Message.objects.filter(kind="invitation", to="ada@example.com").latest("pk")
    fresh_path = re.search(r"/s/[^/\s]+/", delivered(fresh).body_text).group(0)
    assert fresh_path != old
    assert client.get(fresh_path).status_code == 200
    assert client.get(old).status_code == 200  # a GET changes nothing
    # The first POST through the fresh link (joining, here) makes it the seat's link.
    assert client.post(fresh_path + "join/").status_code == 302
    assert client.get(old).status_code == 403
    ada.refresh_from_db()
    assert seat_for_token(fresh_path.split("/")[2]) == ada
    assert nonce_of(fresh_path) == ada.link_nonce and ada.pending_link_nonce == ""
    assert seat_path(ada) == fresh_path  # the seat's link now, to the letter
    assert client.get(fresh_path).status_code == 200


def test_asking_for_fresh_links_again_and_again_never_revokes_the_players_link(client, creator):
    client.post(reverse("games:new"), new_game_data(start_when="now"))
    ada = Game.objects.get().seats.get(name="Ada")
    old = seat_path(ada)
    token = old.split("/")[2]
    for _ in range(3):  # under the rate limits
        client.post(reverse("games:fresh_link", args=[token]), {"email": "ada@example.com"})
    assert client.get(old).status_code == 200
    nonces = {
        nonce_of(re.search(r"/s/[^/\s]+/", delivered(m).body_text).group(0))
        for m in Message.objects.filter(kind="invitation", to="ada@example.com")
    }
    # The invitation's link and one fresh link, mailed three times.
    assert len(nonces) == 2 and nonce_of(old) in nonces


@pytest.mark.parametrize(
    "change",
    [
        {"title": "Friday\r\nBcc: all@example.org"},
        {"players-0-name": "Ada\nBcc: all@example.org"},
    ],
)
def test_a_title_or_name_with_a_line_break_is_refused(client, creator, change):
    response = client.post(reverse("games:new"), new_game_data(**change))
    assert response.status_code == 200
    assert "no line breaks" in response.content.decode()
    assert not Game.objects.exists()


def test_a_replacement_name_with_a_line_break_is_refused(client, creator):
    client.post(reverse("games:new"), new_game_data())
    game = Game.objects.get()
    ada = game.seats.get(name="Ada")
    response = client.post(
        reverse("games:replace", args=[game.pk, ada.position]),
        {"name": "Eve\r\nBcc: x@example.org", "email": "eve@example.com"},
    )
    assert response.status_code == 400
    assert "no line breaks" in response.content.decode()
    ada.refresh_from_db()
    assert ada.name == "Ada"


def test_bots_of_the_same_kind_are_named_apart(client, creator):
    data = new_game_data(start_when="now")
    data |= {
        "players-0-name": "",
        "players-0-email": "",
        "players-0-bot": "strong",
        "players-1-bot": "strong",
        "players-2-bot": "greedy",
    }
    client.post(reverse("games:new"), data)
    names = Game.objects.get().seat_names()
    assert names[1:] == ["Strong bot 1", "Strong bot 2", "Normal bot"]


def test_a_new_game_is_in_the_language_its_creator_chose_invitations_included(
    client, creator, django_capture_on_commit_callbacks
):
    form = client.get(reverse("games:new"), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert '<option value="de" selected>' in form  # the creator's own, to start with
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("games:new"), new_game_data(language="de"))
    assert Game.objects.get().language == "de"
    [invitation] = sent("invitation")
    with translation.override("de"):
        assert gettext("You're invited") in invitation.subject
    assert invitation.extra_headers["Content-Language"] == "de"


def test_the_creator_names_their_own_seat_and_picks_reminders_from_a_list(client):
    creator = UserFactory(name="Dana")
    client.force_login(creator)
    page = client.get(reverse("games:new")).content.decode()
    assert 'name="creator_name"' in page and 'value="Dana"' in page
    assert 'type="checkbox" name="reminder_hours" value="24"' in page
    answer = client.post(
        reverse("games:new"),
        new_game_data(creator_name="Dana B.", reminder_hours=["2", "48", "24"]),
    )
    assert answer.status_code == 302
    game = Game.objects.get()
    assert game.seats.get(position=0).name == "Dana B."
    assert game.reminder_hours == [48, 24, 2]
    # Only the hours offered.
    refused = client.post(reverse("games:new"), new_game_data(reminder_hours=["5"]))
    assert refused.status_code == 200 and Game.objects.count() == 1


def test_the_levels_are_named_in_words_on_the_form_and_the_board(client, creator):
    form = client.get(reverse("games:new")).content.decode()
    for value, label in (("easy", "Easy"), ("greedy", "Normal"), ("strong", "Strong")):
        assert f'<option value="{value}">{label}</option>' in form
    german = client.get(reverse("games:new"), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert '<option value="easy">Leicht</option>' in german
    data = new_game_data(start_when="now")
    data |= {
        "players-0-name": "",
        "players-0-email": "",
        "players-0-bot": "easy",
        "players-1-bot": "strong",
        "players-2-bot": "",
    }
    client.post(reverse("games:new"), data)
    me = Game.objects.get().seats.get(position=0)
    board = client.get(seat_path(me)).content.decode()
    assert "(easy bot)" in board and "(strong bot)" in board
    with translation.override("de"):
        assert bot_levels.seat_words("easy") == "Bot, leicht"
        # A bot seat with no level of its own is the strongest bot.
        assert bot_levels.seat_words("") == "Bot, stark"
        assert bot_levels.label("greedy") == "Normal"
