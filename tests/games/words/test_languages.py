"""Which language a player reads (games.words.languages): their own choice, else the game's."""

import pytest

from games.words.languages import language_for, language_for_address
from tests.factories import GameFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_a_seat_reads_its_account_then_its_own_choice_then_the_games():
    game = GameFactory(language="de")
    seat = game.seats.get(position=1)
    assert language_for(seat) == "de"  # nobody chose: the game's
    seat.language = "en"
    assert language_for(seat) == "en"  # chosen on the board page
    seat.user = UserFactory(language="de")
    assert language_for(seat) == "de"  # the account's choice comes first
    seat.user.language = ""
    assert language_for(seat) == "en"  # an account without a choice does not decide


def test_a_language_the_site_does_not_speak_is_never_used():
    game = GameFactory(language="xx")
    seat = game.seats.get(position=1)
    seat.language = "fr"
    assert language_for(seat) == "en"


def test_an_address_reads_its_account_then_the_language_it_asked_in_then_the_games():
    game = GameFactory(language="de")
    assert language_for_address("nobody@example.org") == "en"
    assert language_for_address("nobody@example.org", game) == "de"
    assert language_for_address("nobody@example.org", game, asked_in="en") == "en"
    UserFactory(email="Someone@Example.org", language="de")
    assert language_for_address("someone@example.org", asked_in="en") == "de"
