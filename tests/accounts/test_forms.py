"""accounts.forms: the list of time zones."""

from accounts.forms import TimeZoneField, timezone_choices


def test_the_time_zones_offered_are_each_place_once_common_ones_first():
    common, every = timezone_choices()
    names = [name for name, _label in every[1]]
    assert common[1][0] == ("UTC", "UTC")
    assert "Europe/Berlin" in names and "America/Chicago" in names
    assert not {"US/Eastern", "Asia/Calcutta", "GB", "Etc/GMT+5"} & set(names)
    assert len(names) < 400  # 599 with every alias
    # A zone chosen before, an alias now, is still offered and valid.
    with_alias = [name for name, _label in timezone_choices("US/Eastern")[1][1]]
    assert "US/Eastern" in with_alias
    assert TimeZoneField().clean("US/Eastern") == "US/Eastern"
