"""Every page and every kind of email, rendered in a pseudo-language, shows no text that
was not marked for translation (issue 19): what is left in plain ASCII letters is a name
the test gave (players, titles, addresses) or nothing at all.

The pseudo-language's catalogue is built from the German one (tests/pseudo_locale.py);
its strings are the English ones in accented look-alike letters.
"""

from zoneinfo import available_timezones

import pytest
from django.test import Client

from accounts.models import User
from games.models import Game, Seat
from notifications.compose import compose
from tests import pseudo_locale
from tests.every_page import pages
from tests.factories import UserFactory
from tests.notifications.every_kind import every_kind

pytestmark = pytest.mark.django_db

# Names the fixtures give, which no catalogue translates; and the site's and boards' names.
NAMES = [
    "Railmail",
    "TransAmerica",
    "TransEuropa",
    "Friday game",
    "Ada Lovelace",
    "Dana",
    "English",
    "Deutsch",
    "UTC",
    "JSON",  # the game record's format, by its names
    "pbem-game-record/1",
    "Pseudo",  # the pseudo-language's own name in the language menu
    "The game moved on.",  # the reason every_kind() gives its answer to a reply
    # The move and the words after it that every_kind()'s confirmation quotes (worded
    # when the move is played, in the reader's language then).
    "Denver to 1 east of Denver, 1 track, towards Omaha",
    "Thanks, Bea!",
]


@pytest.fixture(scope="session")
def pseudo_catalogue(tmp_path_factory):
    return pseudo_locale.build(tmp_path_factory.mktemp("locale"))


@pytest.fixture
def pseudo(settings, pseudo_catalogue):
    code = pseudo_locale.CODE
    settings.LOCALE_PATHS = [pseudo_catalogue, *settings.LOCALE_PATHS]
    settings.LANGUAGES = [*settings.LANGUAGES, (code, "Pseudo")]
    return code


def everyone_reads(code: str) -> None:
    Game.objects.update(language=code)
    User.objects.update(language=code)
    Seat.objects.update(language=code)


# Time zones are offered by their IANA names ("America/New York"): names, not words.
ZONES = [name.replace("_", " ") for name in available_timezones()]


def names_in_play() -> list[str]:
    """Players' names and game titles, as the test made them, and the fixed names."""
    names = ZONES + list(Seat.objects.values_list("name", flat=True))
    names += [name for name in User.objects.values_list("name", flat=True) if name]
    names += [title for title in Game.objects.values_list("title", flat=True) if title]
    return NAMES + names


def test_every_page_says_only_marked_words(pseudo):
    user = UserFactory(name="Dana", email="dana@example.org")
    paths = pages(user)
    everyone_reads(pseudo)
    client = Client()
    client.force_login(user)
    anonymous = Client(HTTP_ACCEPT_LANGUAGE=pseudo)
    found = {}
    for name, path in paths.items():
        page = (anonymous if name == "login" else client).get(path, follow=True)
        assert page.status_code == 200, name
        left = pseudo_locale.unmarked(
            pseudo_locale.shown_text(page.content.decode()), names_in_play()
        )
        if left:
            found[name] = left
    assert found == {}


def test_every_email_says_only_marked_words(pseudo):
    rows = every_kind()
    everyone_reads(pseudo)
    found = {}
    for kind, row in rows.items():
        row.refresh_from_db()
        email = compose(row)
        assert email is not None, kind
        for part, text in (
            ("subject", email.subject),
            ("text", email.text),
            ("html", pseudo_locale.shown_text(email.html)),
        ):
            left = pseudo_locale.unmarked(text, names_in_play())
            if left:
                found[f"{kind} {part}"] = left
    assert found == {}
