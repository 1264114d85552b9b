"""A board page in its player's language, and its language menu (issue 19)."""

import pytest
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from games.links import make_token, rotate_link, seat_path
from games.services import load_state
from games.words.city_names import city_name
from tests.factories import GameFactory, UserFactory

pytestmark = pytest.mark.django_db


def german(text: str, context: str = "") -> str:
    with translation.override("de"):
        said = translation.pgettext(context, text) if context else gettext(text)
    assert said != text, f"{text!r} has no German translation"
    return said


def test_a_german_game_is_german_for_players_who_have_not_chosen(client):
    game = GameFactory(language="de", board="transeuropa")
    seat = game.seats.get(position=1)
    page = client.get(seat_path(seat), HTTP_ACCEPT_LANGUAGE="en")
    text = page.content.decode()
    assert page["Content-Language"] == "de"
    assert german("Your cities") in text
    assert german("Language") in text


def test_a_player_with_only_links_chooses_their_language_on_the_board_page(client):
    game = GameFactory()
    seat = game.seats.get(position=1)
    token = make_token(seat)
    answer = client.post(reverse("games:seat_language", args=[token]), {"language": "de"})
    assert answer.status_code == 302
    seat.refresh_from_db()
    assert seat.language == "de"
    assert german("Your cities") in client.get(seat_path(seat)).content.decode()
    # Only this seat: the others still read the game's language.
    other = game.seats.get(position=2)
    assert "Your cities" in client.get(seat_path(other)).content.decode()


def test_the_board_pages_menu_refuses_a_language_not_offered(client):
    seat = GameFactory().seats.get(position=1)
    answer = client.post(
        reverse("games:seat_language", args=[make_token(seat)]), {"language": "xx"}
    )
    assert answer.status_code == 400
    seat.refresh_from_db()
    assert seat.language == ""


def test_an_accounts_choice_comes_before_the_seats(client):
    game = GameFactory()
    seat = game.seats.get(position=1)
    user = UserFactory(email=seat.email, language="de")
    game.seats.filter(pk=seat.pk).update(user=user, language="en")
    assert german("Your cities") in client.get(seat_path(seat)).content.decode()


def test_real_german_on_a_transeuropa_board_page(client):
    """Spot check, in words a German player reads (not looked up in the catalogue)."""
    game = GameFactory(language="de", board="transeuropa")
    seat = game.seats.get(position=load_state(game).seat_to_move)
    text = client.get(seat_path(seat)).content.decode()
    for words in ("Du bist am Zug", "Runde 1", "Deine Städte", "Startstein", "Sprache"):
        assert words in text, words
    hand = load_state(game).hands[seat.position]
    with translation.override("de"):
        assert all(city_name(city) in text for city in hand)
    assert "Spielplan TransEuropa" in text


def test_a_replaced_link_is_answered_in_its_seats_language(client):
    """The 403 of a replaced link is the seat's player's, whatever the browser asks."""
    game = GameFactory(language="de")
    seat = game.seats.get(position=1)
    old = seat_path(seat)
    rotate_link(seat)
    page = client.get(old, HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 403
    assert page["Content-Language"] == "de"
    text = page.content.decode()
    assert german("This link has been replaced") in text
    assert '<html lang="de">' in text


@pytest.mark.parametrize("language", ["en", "de"])
def test_a_missing_page_is_in_the_readers_language(client, language):
    page = client.get("/no/such/page/", HTTP_ACCEPT_LANGUAGE=language)
    assert page.status_code == 404
    text = page.content.decode()
    with translation.override(language):
        assert gettext("Page not found") in text
    assert f'<html lang="{language}">' in text
    assert page["Content-Language"] == language
    assert "Not Found" not in text


def test_the_manage_page_names_bots_in_the_readers_language(client):
    creator = UserFactory(language="de")
    game = GameFactory(created_by=creator, started=False, bots="strong")
    client.force_login(creator)
    text = client.get(reverse("games:manage", args=[game.pk])).content.decode()
    assert f"Bot ({german('Strong', 'bot level')})" in text
    assert "Bot (strong)" not in text and "Bot (Strong)" not in text
