"""Cities by the names their readers know them by (games.words.city_names)."""

from django.utils import translation

from games import rules
from games.words.city_names import CITIES, city_name


def test_every_city_of_every_board_is_in_the_catalogues():
    listed = set(CITIES)
    for name in rules.BOARD_NAMES:
        for city in rules.get_board(name).cities:
            assert city.name in listed


def test_cities_germans_know_by_a_german_name_have_it():
    with translation.override("de"):
        assert [city_name(name) for name in ("Munich", "Vienna", "Moscow", "Denver")] == [
            "München",
            "Wien",
            "Moskau",
            "Denver",
        ]
    assert city_name("Munich") == "Munich"
