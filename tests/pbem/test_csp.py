"""Headers (issue 13): a Content-Security-Policy without inline scripts or styles on every
page, a policy of its own for the local mailbox, and no-store on every page and download
that shows a player's hand."""

import re
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from games.links import seat_path
from notifications import emails
from tests.factories import UserFactory, running_game_in_round_2, simulated_game

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def policy(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    return {part.split()[0]: part.split()[1:] for part in header.split(";") if part.strip()}


def assert_strict(response):
    directives = policy(response)
    assert directives["script-src"] == ["'self'"]
    assert directives["style-src"] == ["'self'"]
    assert directives["object-src"] == ["'none'"]
    assert directives["frame-ancestors"] == ["'none'"]
    assert "'unsafe-inline'" not in response["Content-Security-Policy"]


def test_every_page_has_a_strict_policy(client):
    game = running_game_in_round_2()
    seat = game.seats.first()
    finished = simulated_game(seed=1)
    user = UserFactory()
    signed_in = Client()
    signed_in.force_login(user)
    pages = [
        client.get(reverse("games:home")),
        client.get(reverse("accounts:login")),
        client.get(reverse("games:history")),
        client.get(reverse("games:replay", args=[finished.pk])),
        client.get(seat_path(seat)),
        client.get(reverse("games:seat_replay", args=[seat_path(seat).split("/")[2]])),
        client.get(reverse("games:seat_moves", args=[seat_path(seat).split("/")[2]])),
        client.get("/s/not-a-token/"),  # the bad-link page (404)
        signed_in.get(reverse("games:new")),
        signed_in.get(reverse("accounts:preferences")),
    ]
    for response in pages:
        assert response.status_code in (200, 404)
        assert_strict(response)


def test_no_template_has_an_inline_script_or_style():
    """Email templates aside (mail clients need inline styles; they are never pages)."""
    found = []
    for path in ROOT.glob("*/templates/**/*.html"):
        if "/templates/emails/" in str(path):
            continue
        text = path.read_text()
        for tag in re.findall(r"<script\b[^>]*>", text):
            if "src=" not in tag and "application/json" not in tag:
                found.append(f"{path}: {tag}")
        if re.search(r"<style\b|\sstyle=|\son[a-z]+=", text):
            found.append(f"{path}: inline style or event handler")
    assert found == []


def test_the_mailbox_has_a_policy_of_its_own(client, settings):
    settings.DEBUG = True
    row = emails.login_link("ada@example.org", "https://railmail.example.org/l/x/")
    response = client.get(reverse("notifications:mailbox_message", args=[row.pk]))
    directives = policy(response)
    # The email's own inline styles show; no script runs, no form posts.
    assert directives["style-src"] == ["'self'", "'unsafe-inline'"]
    assert directives["script-src"] == ["'none'"]
    assert directives["form-action"] == ["'none'"]
    assert "no-store" in response["Cache-Control"]


def no_store(response) -> bool:
    return "no-store" in response.get("Cache-Control", "")


def test_every_page_and_download_that_shows_a_hand_is_never_stored(client):
    game = running_game_in_round_2()
    seat = game.seats.first()
    token = seat_path(seat).split("/")[2]
    player = Client()
    user = UserFactory(email=seat.email)
    seat.user = user
    seat.save(update_fields=["user"])
    player.force_login(user)
    for response in [
        client.get(seat_path(seat)),
        client.get(reverse("games:seat_replay", args=[token])),
        client.get(reverse("games:seat_record", args=[token])),
        player.get(reverse("games:replay", args=[game.pk])),
        player.get(reverse("games:record", args=[game.pk])),
        # The list of every move (its page and the board page's fragment), the replay's
        # steps (through the link, and for the signed-in player).
        client.get(reverse("games:seat_moves", args=[token])),
        client.get(reverse("games:seat_move_list", args=[token])),
        client.get(reverse("games:seat_replay_frame", args=[token]), {"move": 1}),
        player.get(reverse("games:replay_frame", args=[game.pk]), {"move": 1}),
    ]:
        assert response.status_code == 200
        assert no_store(response), response.get("Cache-Control")


def test_a_finished_games_public_replay_may_be_cached(client):
    finished = simulated_game(seed=1)
    assert not no_store(client.get(reverse("games:replay", args=[finished.pk])))
    step = client.get(reverse("games:replay_frame", args=[finished.pk]), {"move": 1})
    assert step.status_code == 200 and not no_store(step)
