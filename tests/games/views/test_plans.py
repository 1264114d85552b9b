"""The build-plan panel and controls on a seat's board page, and the one-tap plan link."""

import pytest
from django.core.management import call_command
from django.urls import reverse

from games import rules, services
from games.links import seat_path
from games.models import Plan
from games.services import plans
from tests.conftest import play_turn
from tests.factories import GameFactory

pytestmark = pytest.mark.django_db


def building_game():
    game = GameFactory()
    for _turn in range(3):
        game = play_turn(game)
    return game


def not_to_move(game):
    state = services.load_state(game)
    return game.seats.exclude(position=state.seat_to_move).order_by("position").first()


def token_of(seat) -> str:
    return seat_path(seat).split("/")[2]


def missing_city(game, seat) -> str:
    state = services.load_state(game)
    own = rules.network(state, seat.position)
    return next(c for c in state.hands[seat.position] if state.board.city_point(c) not in own)


def test_the_owner_sets_a_plan_on_the_board_page_and_sees_it_there_alone(client):
    game = building_game()
    seat = not_to_move(game)
    other = game.seats.exclude(pk=seat.pk).first()
    city = missing_city(game, seat)
    before = client.get(seat_path(seat)).content.decode()
    assert "Keep going toward" in before
    response = client.post(
        reverse("games:plan", args=[token_of(seat)]), {"what": "city", "city": city}
    )
    assert response.status_code == 302
    plan = Plan.objects.get(seat=seat)
    assert (plan.form, plan.city) == (rules.plans.CITY, city)
    page = client.get(seat_path(seat)).content.decode()
    # The cached page keys on the owner's plan: it shows the plan at once.
    assert f"Your plan: keep building toward {city}." in page
    assert "Its next turn builds" in page
    assert "The way it means to build:" in page
    assert "Your plan:" not in client.get(seat_path(other)).content.decode()
    client.post(reverse("games:plan", args=[token_of(seat)]), {"what": "stop"})
    plan.refresh_from_db()
    assert plan.stopped == plans.CANCELLED
    assert "You cancelled your plan." in client.get(seat_path(seat)).content.decode()


def test_a_plan_for_a_city_not_ones_own_is_refused_on_the_page(client):
    game = building_game()
    seat = not_to_move(game)
    state = services.load_state(game)
    other_city = state.hands[(seat.position + 1) % 3][0]
    response = client.post(
        reverse("games:plan", args=[token_of(seat)]),
        {"what": "city", "city": other_city},
        follow=True,
    )
    assert "A plan heads for a city of your own." in response.content.decode()
    assert not Plan.objects.exists()


def test_a_one_tap_plan_link_names_a_number_and_asks_once_before_it_sets(client):
    game = building_game()
    seat = not_to_move(game)
    state = services.load_state(game)
    url = reverse("games:plan_confirm", args=[token_of(seat), 2])
    assert state.hands[seat.position][1] not in url
    page = client.get(url).content.decode()
    assert "Set this plan" in page
    assert not Plan.objects.exists()  # a GET never changes anything
    client.post(
        reverse("games:plan", args=[token_of(seat)]),
        {"what": "city", "city": state.hands[seat.position][1]},
    )
    assert Plan.objects.get(seat=seat).city == state.hands[seat.position][1]
    assert client.get(reverse("games:plan_confirm", args=[token_of(seat), 9])).status_code == 404


def test_a_player_sets_quiet_hours_on_the_board_page_into_the_log(client):
    game = building_game()
    seat = not_to_move(game)
    page = client.get(seat_path(seat)).content.decode()
    assert "Quiet hours" in page
    response = client.post(
        reverse("games:quiet_hours", args=[token_of(seat)]),
        {"start": "21:30", "end": "06:00", "zone": "America/Chicago"},
    )
    assert response.status_code == 302
    event = game.events.order_by("seq").last()
    assert event.type == rules.QUIET_HOURS_SET
    assert event.data == {
        "seat": seat.position,
        "zone": "America/Chicago",
        "start": "21:30",
        "end": "06:00",
    }
    call_command("rebuild_projections", "--check")
    assert 'value="21:30"' in client.get(seat_path(seat)).content.decode()
    bad = client.post(
        reverse("games:quiet_hours", args=[token_of(seat)]),
        {"start": "21:30", "end": "06:00", "zone": "Mars/Olympus"},
    )
    assert bad.status_code == 302
    assert game.events.order_by("seq").last().pk == event.pk


def test_a_route_is_set_by_the_page(client):
    game = building_game()
    seat = not_to_move(game)
    state = services.load_state(game)
    line = rules.legal_line_ids(state, seat.position)[0]
    client.post(reverse("games:plan", args=[token_of(seat)]), {"what": "route", "route": str(line)})
    plan = Plan.objects.get(seat=seat)
    assert (plan.form, plan.route) == (rules.plans.ROUTE, [line])


def test_a_start_marker_is_planned_on_the_page_and_placed_at_the_seats_turn(
    client, django_capture_on_commit_callbacks
):
    game = GameFactory()  # everyone still to place a start marker
    seat = not_to_move(game)
    state = services.load_state(game)
    city = state.hands[seat.position][0]
    point = state.board.city_point(city)
    assert f"Start at {city}, then all my cities" in client.get(seat_path(seat)).content.decode()
    client.post(
        reverse("games:plan", args=[token_of(seat)]), {"what": "start", "starts": str(point)}
    )
    assert Plan.objects.get(seat=seat).starts == [point]
    while (state := services.load_state(game)).start_point(seat.position) is None:
        with django_capture_on_commit_callbacks(execute=True):
            game = play_turn(game)
    assert state.start_point(seat.position) == point
