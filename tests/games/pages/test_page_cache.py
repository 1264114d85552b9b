"""The board and replay pages are rendered once per game version and cached
(games.pages.page_cache): whatever else they show is part of the key, and what differs per
request (the CSRF token) is filled in per request."""

import re
import shutil
import sys
from pathlib import Path

import django
import pytest
from django.conf import settings
from django.test import Client
from django.test.signals import template_rendered

from accounts.models import User
from games import rules
from games.links import seat_path
from games.pages.page_cache import SOURCE_SUFFIXES, page_sources, sources_stamp
from games.services import load_state, talk
from notifications import channel_settings, channels
from notifications.models import MailPreference
from tests.conftest import ON_POSTGRES, play_turn
from tests.factories import GameFactory, UserFactory

pytestmark = pytest.mark.django_db


def token_in(page: bytes) -> str:
    return re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1).decode()


def test_each_visitor_gets_a_working_csrf_token_of_their_own():
    game = GameFactory()
    seat = game.seats.get(position=game.seat_to_move)
    first, second = Client(enforce_csrf_checks=True), Client(enforce_csrf_checks=True)
    page = first.get(seat_path(seat)).content
    cached = second.get(seat_path(seat)).content  # the same page, from the cache
    assert token_in(page) != token_in(cached)
    state = load_state(game)
    point = state.board.point_index[rules.legal_start_points(state)[0]]
    move = {"csrfmiddlewaretoken": token_in(cached), "version": game.version, "point": point}
    assert second.post(seat_path(seat), move).status_code == 302


def test_a_move_shows_at_once_to_everyone(client):
    game = GameFactory()
    watcher = game.seats.get(position=(game.seat_to_move + 1) % 3)
    mover = game.seats.get(position=game.seat_to_move)
    assert f"{mover.name} to move".encode() in client.get(seat_path(watcher)).content
    game = play_turn(game)
    after = client.get(seat_path(watcher)).content
    assert f"{mover.name} to move".encode() not in after


def test_a_change_beside_the_log_shows_at_once(client):
    game = GameFactory()
    seat = game.seats.get(position=0)
    user = UserFactory(timezone="UTC")
    game.seats.filter(pk=seat.pk).update(user=user)
    path = seat_path(seat)
    client.get(path)
    game.seats.filter(position=1).update(name="Renamed")
    assert b"Renamed" in client.get(path).content
    game.title = "A new title"
    game.save(update_fields=["title"])
    assert b"A new title" in client.get(path).content
    User.objects.filter(pk=user.pk).update(timezone="Asia/Tokyo")
    type(game).objects.filter(pk=game.pk).update(deadline="2030-01-01T00:00:00+00:00")
    assert b"(Asia/Tokyo)" in client.get(path).content


def test_the_replay_of_each_move_is_its_own(client):
    game = play_turn(play_turn(GameFactory()))
    token = seat_path(game.seats.get(position=0)).split("/")[2]
    pages = {move: client.get(f"/s/{token}/history/?move={move}").content for move in (2, 3)}
    assert b"Move <strong>2</strong>" in pages[2]
    assert b"Move <strong>3</strong>" in pages[3]
    again = client.get(f"/s/{token}/history/?move=2").content
    # The same page, but for the language menu's CSRF token (masked anew each time).
    assert without_csrf(again) == without_csrf(pages[2])


def without_csrf(page: bytes) -> bytes:
    return re.sub(rb'name="csrfmiddlewaretoken" value="[^"]*"', b"", page)


def test_what_the_page_reads_afresh_shows_at_once(client):
    """Table talk, the next game waiting and the signed-in account are not in the log."""
    game = GameFactory()
    seat = game.seats.get(position=(game.seat_to_move + 1) % 3)
    path = seat_path(seat)
    assert b"Next game waiting" not in client.get(path).content
    # Another game, waiting for this player's move: the page says so at once.
    other = GameFactory()
    other.seats.filter(position=other.seat_to_move).update(email=seat.email)
    assert b"Next game waiting" in client.get(path).content
    talker = game.seats.get(position=game.seat_to_move)
    talk.post(talker, "Nice move, everyone.")
    assert b"Nice move, everyone." in client.get(path).content
    user = UserFactory(name="Grace Hopper")
    client.force_login(user)
    assert b"Grace" in client.get(path).content
    client.logout()
    assert b"Grace" not in client.get(path).content


def test_a_channel_added_shows_on_the_cached_page_at_once(client, settings):
    """A seat with no channel has its channels panel in the cached page; one added is
    listed at once."""
    settings.RAILMAIL_CHANNELS_ALLOW_PRIVATE = True  # example.org resolves nowhere here
    game = GameFactory()
    seat = game.seats.get(position=(game.seat_to_move + 1) % 3)
    path = seat_path(seat)
    client.get(path)  # cached with the panel that lists nothing
    assert b"ntfy.example.org" not in client.get(path).content
    channel = channel_settings.add_for_seat(seat, "ntfys://ntfy.example.org/my-topic")
    assert channels.masked(channel.url).encode() in client.get(path).content


def test_the_note_after_a_move_is_kept_with_the_page_it_leads_to_not_the_seats_link(client):
    game = GameFactory()
    seat = game.seats.get(position=game.seat_to_move)
    state = load_state(game)
    point = state.board.point_index[rules.legal_start_points(state)[0]]
    response = client.post(seat_path(seat), {"version": game.version, "point": point}, follow=True)
    assert b"Your move is in" in response.content
    assert b"Your move is in" not in client.get(seat_path(seat)).content
    assert b"Your move is in" in client.get(response.redirect_chain[-1][0]).content


def test_the_replay_reads_table_talk_and_the_account_afresh(client):
    game = play_turn(GameFactory())
    path = seat_path(game.seats.get(position=0)) + "history/"
    assert b"Well played." not in client.get(path).content
    talk.post(game.seats.get(position=1), "Well played.")
    assert b"Well played." in client.get(path).content
    client.force_login(UserFactory(name="Grace Hopper"))
    assert b"Grace" in client.get(path).content
    client.logout()
    assert b"Grace" not in client.get(path).content


def test_a_cached_page_is_the_page_rendered_afresh_in_utf8(client):
    # Kept encoded (games.pages.page_cache.page): names, the German board's cities and the talk
    # filled in come out as UTF-8, the same from the cache as when first rendered.
    game = GameFactory(board="transeuropa", language="de")
    game.seats.filter(position=1).update(name="Zoë Ørsted")
    talk.post(game.seats.get(position=1), "Grüße aus München")
    path = seat_path(game.seats.get(position=0))
    first, cached = client.get(path).content, client.get(path).content
    for page in (first, cached):
        text = page.decode("utf-8")
        assert "Zoë Ørsted" in text
        assert "Grüße aus München" in text
        assert "München" in text.replace("Grüße aus München", "")  # on the board too
    token = token_in(first)
    assert cached.replace(token_in(cached).encode(), token.encode()) == first


def copy_of(folder: Path, into: Path) -> Path:
    return Path(shutil.copytree(folder, into, ignore=shutil.ignore_patterns("__pycache__")))


def test_the_stamp_changes_when_any_file_in_any_page_source_changes(tmp_path):
    """A file changed in any folder a page is rendered from gives another stamp, so a new
    release never serves a page an older one cached."""
    copies = [copy_of(folder, tmp_path / str(n)) for n, folder in enumerate(page_sources())]
    before = sources_stamp(copies)
    for copy in copies:
        changed = next(path for path in sorted(copy.rglob("*")) if path.suffix in SOURCE_SUFFIXES)
        original = changed.read_bytes()
        changed.write_bytes(original + b"\n")
        assert sources_stamp(copies) != before, changed
        changed.write_bytes(original)
        assert sources_stamp(copies) == before


DJANGO = Path(django.__file__).parent


def under_a_source(path: str) -> bool:
    return any(Path(path).resolve().is_relative_to(folder.resolve()) for folder in page_sources())


def test_every_template_and_module_a_page_is_rendered_from_is_in_a_page_source(client):
    """The stamp covers what the board and replay pages really use: every template they
    render and every project module loaded to render them lies in page_sources()."""
    game = GameFactory()
    seat = game.seats.get(position=game.seat_to_move)
    rendered = []

    def note(sender, template, **kwargs):
        rendered.append(template.origin.name)

    template_rendered.connect(note)
    try:
        play_turn(game)
        assert client.get(seat_path(seat)).status_code == 200
        assert client.get(seat_path(seat) + "history/").status_code == 200
    finally:
        template_rendered.disconnect(note)
    # Django's own templates (a form's layout) are in the stamp by Django's version.
    ours = [name for name in rendered if not Path(name).is_relative_to(DJANGO)]
    assert ours
    assert [name for name in ours if not under_a_source(name)] == []
    project = Path(settings.BASE_DIR).resolve()
    loaded = [
        module.__file__
        for name, module in list(sys.modules.items())
        if getattr(module, "__file__", None)
        and Path(module.__file__).resolve().is_relative_to(project)
        and not Path(module.__file__).resolve().is_relative_to(Path(sys.prefix).resolve())
        and not name.startswith(("tests", "manage", "benchmarks", "scripts"))
        # mypyc's runtime for the modules setup.py compiles from page sources.
        and name != "railmail__mypyc"
    ]
    assert loaded
    assert [path for path in loaded if not under_a_source(path)] == []


def form_game():
    """A game as the new-game form makes it by default, with a day a move: reminders, mail
    on, its creator at seat 1 from an account, the others invited by email and joined."""
    from benchmarks import form_games

    return form_games.new_game("transeuropa", 4, True, "form")


def test_a_board_page_of_a_timed_game_is_one_query(client, django_assert_num_queries):
    # The seat at its table with the game's creator (for the channels panel), and why mail
    # to the seat is stopped, in the one statement; the panels come from the cache.
    game = form_game()
    assert game.time_per_move and game.reminder_hours and game.created_by_id
    seat = game.seats.get(position=game.seat_to_move)
    MailPreference.objects.create(address=seat.email, digest=True)
    client.get(seat_path(seat))  # the state and the page cached, as a server keeps them
    with django_assert_num_queries(1):
        page = client.get(seat_path(seat)).content
    assert b"one email a day" in page and b"Add my channel" in page
    creator = game.seats.get(user=game.created_by)
    assert (b"Give the table this channel" in page) == (seat == creator)
    client.get(seat_path(creator))
    with django_assert_num_queries(1 if creator == seat else 2):  # or the next game waiting
        page = client.get(seat_path(creator)).content
    assert b"Give the table this channel" in page


def test_a_move_in_a_timed_game_is_a_read_and_one_write(client, django_assert_num_queries):
    # The seats with why mail is stopped, then the claim with its events and outbox rows
    # in one statement, in a savepoint here as the test runs in a transaction (on SQLite,
    # which has no such statement, the same read and then the writes one by one).
    game = form_game()
    seat = game.seats.get(position=game.seat_to_move)
    state = load_state(game)
    point = state.board.point_index[rules.legal_start_points(state)[0]]
    with django_assert_num_queries(4 if ON_POSTGRES else 8) as queries:
        response = client.post(seat_path(seat), {"version": game.version, "point": point})
    assert response.status_code == 302
    said = [q["sql"].split()[0] for q in queries.captured_queries]
    if ON_POSTGRES:
        assert said == ["SELECT", "SAVEPOINT", "WITH", "RELEASE"]


def test_a_move_sent_from_an_old_page_is_answered_from_the_one_read(
    client, django_assert_num_queries
):
    # The board drawn again with "the game has moved on" says why mail is stopped from
    # what the seat view read with the table.
    game = form_game()
    seat = game.seats.get(position=game.seat_to_move)
    MailPreference.objects.create(address=seat.email, digest=True)
    client.get(seat_path(seat))  # the state kept in the process, as a server keeps it
    with django_assert_num_queries(1):
        response = client.post(seat_path(seat), {"version": game.version - 1})
    assert response.status_code == 409
    assert b"one email a day" in response.content
