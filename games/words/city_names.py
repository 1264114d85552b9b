"""Cities by the names their readers know them by: "München" for a German reader, "Munich"
in English. The board data, the engine and every record keep the canonical (English)
names; these are for display only, and reading a name back accepts every language's.
"""

from collections.abc import Iterable

from django.utils.translation import pgettext, pgettext_lazy

# Every city of every board, so that each is in the catalogues (tests check the list is
# complete): most keep their name in German, some do not (München, Wien, Moskau).
CITIES = (
    # TransAmerica
    pgettext_lazy("city", "Helena"),
    pgettext_lazy("city", "Bismarck"),
    pgettext_lazy("city", "Minneapolis"),
    pgettext_lazy("city", "Chicago"),
    pgettext_lazy("city", "Cincinnati"),
    pgettext_lazy("city", "Duluth"),
    pgettext_lazy("city", "Buffalo"),
    pgettext_lazy("city", "Portland"),
    pgettext_lazy("city", "Medford"),
    pgettext_lazy("city", "Sacramento"),
    pgettext_lazy("city", "San Francisco"),
    pgettext_lazy("city", "Los Angeles"),
    pgettext_lazy("city", "Seattle"),
    pgettext_lazy("city", "San Diego"),
    pgettext_lazy("city", "New York"),
    pgettext_lazy("city", "Washington"),
    pgettext_lazy("city", "Winston"),
    pgettext_lazy("city", "Charleston"),
    pgettext_lazy("city", "Jacksonville"),
    pgettext_lazy("city", "Boston"),
    pgettext_lazy("city", "Richmond"),
    pgettext_lazy("city", "Phoenix"),
    pgettext_lazy("city", "Memphis"),
    pgettext_lazy("city", "Dallas"),
    pgettext_lazy("city", "El Paso"),
    pgettext_lazy("city", "New Orleans"),
    pgettext_lazy("city", "Atlanta"),
    pgettext_lazy("city", "Houston"),
    pgettext_lazy("city", "Salt Lake City"),
    pgettext_lazy("city", "Omaha"),
    pgettext_lazy("city", "St. Louis"),
    pgettext_lazy("city", "Santa Fe"),
    pgettext_lazy("city", "Oklahoma City"),
    pgettext_lazy("city", "Denver"),
    pgettext_lazy("city", "Kansas City"),
    # TransEuropa
    pgettext_lazy("city", "Marseille"),
    pgettext_lazy("city", "Florence"),
    pgettext_lazy("city", "Sofia"),
    pgettext_lazy("city", "Rome"),
    pgettext_lazy("city", "Tirana"),
    pgettext_lazy("city", "Istanbul"),
    pgettext_lazy("city", "Thessaloniki"),
    pgettext_lazy("city", "Amsterdam"),
    pgettext_lazy("city", "Warsaw"),
    pgettext_lazy("city", "Zurich"),
    pgettext_lazy("city", "Munich"),
    pgettext_lazy("city", "Vienna"),
    pgettext_lazy("city", "Frankfurt"),
    pgettext_lazy("city", "Paris"),
    pgettext_lazy("city", "Glasgow"),
    pgettext_lazy("city", "Oslo"),
    pgettext_lazy("city", "Stockholm"),
    pgettext_lazy("city", "St. Petersburg"),
    pgettext_lazy("city", "Moscow"),
    pgettext_lazy("city", "Helsinki"),
    pgettext_lazy("city", "Copenhagen"),
    pgettext_lazy("city", "Dublin"),
    pgettext_lazy("city", "London"),
    pgettext_lazy("city", "Plymouth"),
    pgettext_lazy("city", "Bilbao"),
    pgettext_lazy("city", "Madrid"),
    pgettext_lazy("city", "Brest"),
    pgettext_lazy("city", "Barcelona"),
    pgettext_lazy("city", "Vilnius"),
    pgettext_lazy("city", "Minsk"),
    pgettext_lazy("city", "Kyiv"),
    pgettext_lazy("city", "Odessa"),
    pgettext_lazy("city", "Bucharest"),
    pgettext_lazy("city", "Riga"),
    pgettext_lazy("city", "Kharkiv"),
)


def city_name(name: str) -> str:
    """The canonical city ``name`` in the active language."""
    return pgettext("city", name)


def city_names(names: Iterable[str] | None) -> list[str] | None:
    """Canonical city names (a hand) in the active language; None stays None (a hidden
    hand)."""
    return None if names is None else [city_name(name) for name in names]
