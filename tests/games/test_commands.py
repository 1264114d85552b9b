from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from accounts.models import User
from games.models import Game
from tests.conftest import play_turn
from tests.factories import GameFactory

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_rebuild_projections_fixes_and_reports_only_the_games_that_differed():
    good = play_turn(GameFactory())
    bad = play_turn(GameFactory())
    Game.objects.filter(pk=bad.pk).update(status="finished", seat_to_move=None, version=1)

    output = run("rebuild_projections")

    assert f"Game {bad.pk}:" in output
    assert "status 'finished' -> 'active'" in output
    assert f"Game {good.pk}:" not in output
    bad.refresh_from_db()
    assert (bad.status, bad.seat_to_move, bad.version) == ("active", 1, 3)
    assert "0 game(s) differed" in run("rebuild_projections")


def test_rebuild_projections_check_reports_without_fixing_and_fails():
    game = GameFactory()
    Game.objects.filter(pk=game.pk).update(round=5)

    with pytest.raises(CommandError) as excinfo:
        run("rebuild_projections", "--check")

    assert excinfo.value.returncode == 1
    game.refresh_from_db()
    assert game.round == 5


def test_rebuild_projections_check_passes_when_all_agree():
    GameFactory()
    assert "0 game(s) differ." in run("rebuild_projections", "--check")


def test_demo_creates_a_started_game_and_says_where_to_open_it(settings):
    settings.DEBUG = True
    output = run("demo")
    game = Game.objects.get()
    assert game.status == "active"
    assert game.seats.count() == 3
    assert f"/admin/games/game/{game.pk}/change/" in output
    demo = User.objects.get(email="demo@example.com")
    assert demo.is_superuser
    assert demo.check_password("demo")
    assert game.seats.get(position=0).user == demo
    # Seats named like people, never "You" (which the others would read as "You (you)").
    assert game.seat_names() == ["Dana", "Ada", "Grace"]
    # The password is said to be for the admin only: players sign in by emailed link.
    assert "password is for /admin/ only" in output
    assert "/accounts/login/" in output and "/mail/mailbox/" in output
    # Run again: the same game and account, found rather than made anew.
    again = run("demo")
    assert Game.objects.count() == 1 and User.objects.count() == 1
    assert "is still running" in again
    # Once it is over, the next run starts a new one.
    Game.objects.update(status=Game.Status.FINISHED)
    run("demo")
    assert Game.objects.count() == 2


def test_demo_refuses_to_run_without_debug(settings):
    settings.DEBUG = False
    with pytest.raises(CommandError, match="local development"):
        run("demo")
    assert not User.objects.exists()


def test_demo_prints_the_signed_link_to_the_demo_players_seat(settings):
    from games.links import seat_for_token

    settings.DEBUG = True
    output = run("demo")
    game = Game.objects.get()
    link = next(word for word in output.split() if "/s/" in word)
    assert link.startswith(settings.SITE_URL)
    assert seat_for_token(link.rstrip("/").rsplit("/", 1)[1]) == game.seats.get(position=0)
