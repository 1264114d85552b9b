"""A clock that sleeps: quiet hours in the player's zone, the weekend pause, vacations
(games.derived.sleep), and the deadlines the log gives with them (rebuild_projections
agrees)."""

from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.core.management import call_command

from accounts.models import User
from games.derived import sleep
from games.derived.projection import sleep_of
from games.forms import NewGameForm
from games.models import Game
from games.services import GameSettings, SeatSpec, clock, open_game
from notifications import reminders
from tests.conftest import play_turn
from tests.factories import GameFactory

BERLIN = ZoneInfo("Europe/Berlin")
NIGHT = (time(22, 0), time(7, 0))


def berlin(*args) -> datetime:
    return datetime(*args, tzinfo=BERLIN)


def test_a_turn_does_not_count_the_night_and_never_runs_out_in_it():
    rest = sleep.Sleep(zone="Europe/Berlin", quiet=NIGHT)
    # Half an hour left before the night, an hour to play: due at 07:30 next morning.
    due = sleep.run_clock(berlin(2026, 6, 10, 21, 30), timedelta(hours=1), rest)
    assert due == berlin(2026, 6, 11, 7, 30)
    # Begun at night: the clock starts at 07:00.
    due = sleep.run_clock(berlin(2026, 6, 10, 23, 0), timedelta(hours=1), rest)
    assert due == berlin(2026, 6, 11, 8, 0)


def test_a_day_a_move_lands_outside_quiet_hours():
    rest = sleep.Sleep(zone="Europe/Berlin", quiet=NIGHT)
    start = berlin(2026, 6, 10, 12, 0)
    due = sleep.run_clock(start, timedelta(days=1), rest)
    # 10 waking hours to 22:00, 9 asleep, the other 14 from 07:00: due at 21:00.
    assert due == berlin(2026, 6, 11, 21, 0)


@pytest.mark.parametrize(
    ("evening", "morning_utc"),
    [
        # Spring forward (29 March 2026): 22:00 CET is 21:00 UTC, 07:00 CEST is 05:00 UTC.
        (berlin(2026, 3, 28, 21, 30), datetime(2026, 3, 29, 5, 30, tzinfo=UTC)),
        # Fall back (25 October 2026): 22:00 CEST is 20:00 UTC, 07:00 CET is 06:00 UTC.
        (berlin(2026, 10, 24, 21, 30), datetime(2026, 10, 25, 6, 30, tzinfo=UTC)),
    ],
    ids=["spring forward", "fall back"],
)
def test_daylight_saving_changes_keep_the_night_local(evening, morning_utc):
    rest = sleep.Sleep(zone="Europe/Berlin", quiet=NIGHT)
    due = sleep.run_clock(evening, timedelta(hours=1), rest)
    assert due == morning_utc
    assert due.astimezone(BERLIN).time() == time(7, 30)


def test_the_weekend_pause_runs_from_saturday_to_monday_in_the_games_zone():
    rest = sleep.Sleep(zone="Europe/Berlin", quiet=None, weekend_zone="Europe/Berlin")
    friday = berlin(2026, 6, 12, 23, 0)  # a Friday
    due = sleep.run_clock(friday, timedelta(hours=2), rest)
    assert due == berlin(2026, 6, 15, 1, 0)  # Monday 01:00


def test_precedence_is_vacation_then_weekend_then_quiet_hours():
    saturday_night = berlin(2026, 6, 13, 23, 0)
    vacation = ((saturday_night - timedelta(hours=1), saturday_night + timedelta(hours=1)),)
    rest = sleep.Sleep(
        zone="Europe/Berlin", quiet=NIGHT, weekend_zone="Europe/Berlin", vacations=vacation
    )
    assert sleep.asleep(saturday_night, rest) == sleep.VACATION
    assert sleep.asleep(saturday_night + timedelta(hours=2), rest) == sleep.WEEKEND
    assert sleep.asleep(berlin(2026, 6, 15, 23, 0), rest) == sleep.QUIET
    assert sleep.asleep(berlin(2026, 6, 15, 12, 0), rest) is None
    # Monday 00:00 to 07:00 is still the night: the clock wakes at 07:00.
    assert sleep.wake(saturday_night, rest) == berlin(2026, 6, 15, 7, 0)


def test_quiet_hours_end_in_the_players_morning_whatever_the_weekend():
    rest = sleep.Sleep(zone="Europe/Berlin", quiet=NIGHT, weekend_zone="Europe/Berlin")
    # Saturday 23:00 and Sunday 02:00: a notice waits for 07:00 (the weekend pauses the
    # clock, not the player's notices); at noon it waits for nothing.
    assert sleep.quiet_until(berlin(2026, 6, 13, 23, 0), rest) == berlin(2026, 6, 14, 7, 0)
    assert sleep.quiet_until(berlin(2026, 6, 14, 2, 0), rest) == berlin(2026, 6, 14, 7, 0)
    assert sleep.quiet_until(berlin(2026, 6, 14, 12, 0), rest) is None
    assert sleep.quiet_until(berlin(2026, 6, 14, 7, 0), rest) is None


# Deadlines from the log.


@pytest.mark.django_db
def test_a_players_quiet_hours_are_in_the_log_and_rebuild_projections_agrees():
    game = GameFactory(time_per_move=timedelta(hours=1))
    Game.objects.filter(pk=game.pk).update(time_zone="Europe/Berlin")
    game = Game.objects.get(pk=game.pk)
    seat = game.seats.get(position=game.seat_to_move)
    game = clock.set_quiet_hours(seat, "Asia/Tokyo", time(0, 0), time(23, 59))
    event = game.events.order_by("seq").last()
    assert event.type == "quiet_hours_set"
    assert event.data == {
        "seat": seat.position,
        "zone": "Asia/Tokyo",
        "start": "00:00",
        "end": "23:59",
    }
    game.refresh_from_db()
    # Awake a minute a day in Tokyo: the hour to play takes two months of nights.
    assert game.deadline > event.created_at + timedelta(days=50)
    # It runs out as the minute awake ends, never inside the quiet hours.
    rest = sleep_of(game, seat.position, upto=game.version)
    assert sleep.asleep(game.deadline - timedelta(seconds=1), rest) is None
    call_command("rebuild_projections", "--check")
    # The same hours again change nothing.
    assert (
        clock.set_quiet_hours(seat, "Asia/Tokyo", time(0, 0), time(23, 59)).version == game.version
    )


@pytest.mark.django_db
def test_the_sites_default_quiet_hours_time_every_turn(settings):
    settings.RAILMAIL_QUIET_HOURS = ("00:00", "23:00")
    game = GameFactory(time_per_move=timedelta(hours=2))
    game = play_turn(game)
    event = game.events.order_by("seq").last()
    # An hour a day awake (23:00 to 00:00 UTC): the two hours end after the second night.
    assert game.deadline >= event.created_at + timedelta(hours=23)
    assert game.deadline.astimezone(UTC).time() >= time(23, 0) or game.deadline.time() == time(0)
    call_command("rebuild_projections", "--check")


@pytest.mark.django_db
def test_a_weekend_pause_game_and_rebuild_projections_agree(settings):
    game = GameFactory(time_per_move=timedelta(hours=30))
    Game.objects.filter(pk=game.pk).update(weekend_pause=True, time_zone="Europe/Berlin")
    game = play_turn(Game.objects.get(pk=game.pk))
    start = game.events.order_by("seq").last().created_at
    rest = sleep_of(game, game.seat_to_move, upto=game.version)
    assert game.deadline == sleep.run_clock(start, timedelta(hours=30), rest)
    assert sleep.asleep(game.deadline - timedelta(seconds=1), rest) is None
    call_command("rebuild_projections", "--check")


@pytest.mark.django_db
def test_changing_ones_preferences_records_the_quiet_hours_in_each_running_game(client):
    game = GameFactory(time_per_move=timedelta(days=1))
    seat = game.seats.get(position=0)
    user = User.objects.create_user(seat.email, password="a-long-password-1")
    game.seats.filter(pk=seat.pk).update(user=user)
    client.force_login(user)
    response = client.post(
        "/accounts/preferences/",
        {
            "name": "Ada",
            "email_mode": user.email_mode,
            "reminders": "on",
            "timezone": "America/New_York",
            "quiet_start": "23:00",
            "quiet_end": "06:30",
            "language": "",
        },
    )
    assert response.status_code == 302
    event = game.events.order_by("seq").last()
    assert event.type == "quiet_hours_set"
    assert event.data == {"seat": 0, "zone": "America/New_York", "start": "23:00", "end": "06:30"}
    call_command("rebuild_projections", "--check")


@pytest.mark.django_db
def test_a_reminder_in_quiet_hours_waits_for_their_end():
    game = GameFactory(time_per_move=timedelta(days=3))
    seat = game.seats.get(position=game.seat_to_move)
    game = clock.set_quiet_hours(seat, "UTC", time(0, 0), time(12, 0))
    game.refresh_from_db()
    night = game.deadline.replace(hour=3, minute=0, second=0, microsecond=0) - timedelta(days=1)
    assert not reminders.send_reminder(game.pk, night)
    game.refresh_from_db()
    assert game.remind_at == night.replace(hour=12)


@pytest.mark.django_db
def test_the_weekend_pause_is_a_new_game_option():
    assert "weekend_pause" in NewGameForm.base_fields
    game = open_game(
        GameSettings("transamerica", weekend_pause=True, start_now=True),
        [SeatSpec("Ada", "ada@example.com"), SeatSpec("Bo", "bo@example.com")],
    )
    assert Game.objects.get(pk=game.pk).weekend_pause


@pytest.mark.django_db
def test_an_accounts_zone_and_quiet_hours_time_its_turns_from_the_start():
    tokyo = User.objects.create_user("ada@example.com", password="a-long-password-1")
    User.objects.filter(pk=tokyo.pk).update(timezone="Asia/Tokyo")
    tokyo.refresh_from_db()
    plain = User.objects.create_user("bo@example.com", password="a-long-password-1")
    game = open_game(
        GameSettings("transamerica", time_per_move=timedelta(days=1), start_now=True),
        [SeatSpec("Ada", tokyo.email, user=tokyo), SeatSpec("Bo", plain.email, user=plain)],
    )
    quiet = list(game.events.filter(type="quiet_hours_set").values_list("data", flat=True))
    # Bo's account says what the game assumes (its zone, the default hours): no event.
    assert quiet == [{"seat": 0, "zone": "Asia/Tokyo", "start": "22:00", "end": "07:00"}]
    call_command("rebuild_projections", "--check")
