from datetime import UTC, datetime, timedelta

import pytest
from django.template import Context, Template
from django.utils import translation

from pbem.templatetags.words import ago, deadline, duration, local_time

NOW = datetime(2026, 11, 23, 16, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    "value, words",
    [
        (timedelta(days=2), "2\xa0days"),
        (timedelta(hours=12), "12\xa0hours"),
        (timedelta(days=1, hours=6, minutes=5), "1\xa0day, 6\xa0hours"),
        (timedelta(minutes=30), "30\xa0minutes"),
        (None, ""),
    ],
)
def test_a_duration_is_in_words(value, words):
    assert duration(value) == words


def test_a_deadline_says_how_long_and_when_on_the_readers_clock():
    due = NOW + timedelta(days=2, hours=1, minutes=30)
    assert (
        deadline(due, "Europe/Berlin", now=NOW) == "in 2\xa0days, 1\xa0hour (Wed 25 Nov, 19:00 CET)"
    )
    assert deadline(due, "America/New_York", now=NOW).endswith("(Wed 25 Nov, 13:00 EST)")
    assert deadline(NOW - timedelta(minutes=1), "UTC", now=NOW).startswith("now (")
    assert deadline(None) == ""


def test_an_unknown_zone_falls_back_to_utc():
    assert local_time(NOW, "Mars/Olympus") == "Mon 23 Nov, 16:30 UTC"


def test_templates_load_them():
    rendered = Template("{% load words %}{{ d|duration }}").render(
        Context({"d": timedelta(days=3)})
    )
    assert rendered == "3\xa0days"


def test_ago_says_just_now_within_the_first_minute_never_0_minutes():
    assert ago(NOW - timedelta(seconds=20), NOW) == "just now"
    assert ago(NOW - timedelta(minutes=5), NOW) == "5\xa0minutes ago"
    with translation.override("de"):
        assert ago(NOW - timedelta(seconds=59), NOW) == "gerade eben"
        assert ago(NOW - timedelta(minutes=5), NOW) == "vor 5\xa0Minuten"


@pytest.mark.parametrize(
    "moment, zone_name, language, name",
    [
        (NOW, "Europe/Berlin", "de", "MEZ"),
        (datetime(2026, 7, 1, 12, tzinfo=UTC), "Europe/Berlin", "de", "MESZ"),
        (NOW, "Europe/Berlin", "en", "CET"),
        (datetime(2026, 7, 1, 12, tzinfo=UTC), "Europe/Berlin", "en", "CEST"),
        (NOW, "America/New_York", "de", "EST"),  # no German short name: the database's
        (NOW, "America/New_York", "en", "EST"),
        (NOW, "UTC", "de", "UTC"),
    ],
)
def test_a_zone_is_named_as_the_readers_language_names_it(moment, zone_name, language, name):
    with translation.override(language):
        assert local_time(moment, zone_name).endswith(f" {name}")
