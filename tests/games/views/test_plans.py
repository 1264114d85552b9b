"""The build-plan panel and controls on a seat's board page, and the one-tap plan link."""

import html
import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from games import rules, services
from games.links import seat_path
from games.models import Plan
from games.pages import plan_panel
from games.services import plans
from tests.conftest import play_turn
from tests.factories import GameFactory

pytestmark = pytest.mark.django_db


def building_game(**kwargs):
    game = GameFactory(**kwargs)
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
    # The way it means to build is drawn on the owner's board, in order, and on nobody
    # else's.
    planned = re.findall(r'class="planned" data-planned="(\d+)"', page)
    path = plan_panel.path(services.load_state(game), seat.position, plan)
    assert planned and [int(line) for line in planned] == path
    theirs = client.get(seat_path(other)).content.decode()
    assert "Your plan:" not in theirs
    assert 'class="planned"' not in theirs
    client.post(reverse("games:plan", args=[token_of(seat)]), {"what": "stop"})
    plan.refresh_from_db()
    assert plan.stopped == plans.CANCELLED
    page = client.get(seat_path(seat)).content.decode()
    assert "You cancelled your plan." in page and 'class="planned"' not in page


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


@pytest.mark.parametrize(
    "language, words",
    [
        ("en", ("Follow a route", "Its next turn builds", "Follow this route", "Your route")),
        (
            "de",
            ("Einer Route folgen", "Sein nächster Zug baut", "Dieser Route folgen", "Deine Route"),
        ),
    ],
)
def test_a_route_is_picked_line_by_line_without_a_script_then_confirmed_once(
    client, language, words
):
    game = building_game()
    seat = not_to_move(game)
    seat.language = language
    seat.save(update_fields=["language"])
    path = seat_path(seat)
    token = path.split("/")[2]
    board_page = client.get(path).content.decode()
    url = reverse("games:plan_route", args=[token])
    assert f'id="route-start" href="{url}"' in board_page  # the link works without a script
    state = services.load_state(game)
    first = plan_panel.route_next(state, seat.position, [])[0]
    page = client.get(url, {"lines": "", "add": first}).content.decode()
    second = plan_panel.route_next(state, seat.position, [first])[0]
    page = client.get(url, {"lines": str(first), "add": second})
    text = page.content.decode()
    assert page.status_code == 200
    assert [word for word in words if word not in text] == []
    assert f'name="route" value="{first},{second}"' in text
    assert [int(n) for n in re.findall(r'data-planned="(\d+)"', text)] == [first, second]
    assert not Plan.objects.filter(seat=seat).exists()  # picking sets nothing
    # Taken back, the last line goes; the one confirmation sets the route.
    undone = client.get(url, {"lines": f"{first},{second}", "undo": "on"}).content.decode()
    assert f'name="route" value="{first}"' in undone
    client.post(
        reverse("games:plan", args=[token]), {"what": "route", "route": f"{first},{second}"}
    )
    plan = Plan.objects.get(seat=seat)
    assert (plan.form, plan.route) == (rules.plans.ROUTE, [first, second])
    page = client.get(seat_path(seat)).content.decode()
    planned = [int(n) for n in re.findall(r'class="planned" data-planned="(\d+)"', page)]
    assert planned == [first, second]


def test_a_line_that_does_not_continue_the_route_is_refused_and_the_rest_kept(client):
    game = building_game()
    seat = not_to_move(game)
    state = services.load_state(game)
    first = plan_panel.route_next(state, seat.position, [])[0]
    follows = set(plan_panel.route_next(state, seat.position, [first]))
    far = next(
        line
        for line in range(len(state.board.lines))
        if line not in follows and line not in state.built and line != first
    )
    url = reverse("games:plan_route", args=[token_of(seat)])
    response = client.get(url, {"lines": f"{first},{far}"})
    text = response.content.decode()
    assert response.status_code == 400
    assert "That line does not continue your route" in text
    assert f'name="route" value="{first}"' in text
    assert not Plan.objects.filter(seat=seat).exists()


def test_a_route_is_not_picked_before_the_start_marker_is_placed(client):
    game = GameFactory()
    seat = not_to_move(game)
    response = client.get(reverse("games:plan_route", args=[token_of(seat)]))
    assert "once your start marker is on the board" in response.content.decode()
    assert "route-data" not in client.get(seat_path(seat)).content.decode()


@pytest.mark.parametrize(
    "language, one, two",
    [
        ("en", "Toledo (1 track, one turn)", "Toledo (2 tracks, one turn)"),
        ("de", "Toledo zu (1 Schiene, ein Zug)", "Toledo zu (2 Schienen, ein Zug)"),
    ],
)
def test_an_offer_of_one_turn_is_worded_as_one(language, one, two):
    from django.template.loader import render_to_string
    from django.utils import translation

    offers = [
        {"city": "Toledo", "name": "Toledo", "number": n, "cost": cost, "turns": turns}
        for n, cost, turns in ((1, 1, 1), (2, 2, 1), (3, 5, 3))
    ]
    plan = {"holding": False, "offers": offers, "starts": [], "route": None, "quiet": {}}
    with translation.override(language):
        text = render_to_string("games/_plan.html", {"plan": plan, "token": "t"})
    assert one in text and two in text
    assert "1 turns" not in text and "1 Züge" not in text
    assert ("about 3 turns" if language == "en" else "etwa 3 Züge") in text


@pytest.mark.parametrize("then", ["all", "city", "route"])
def test_after_choosing_a_turns_lines_a_plan_for_the_next_turns(
    client, django_capture_on_commit_callbacks, then
):
    game = building_game()
    state = services.load_state(game)
    seat = game.seats.get(position=state.seat_to_move)
    page = client.get(seat_path(seat)).content.decode()
    assert 'name="then"' in page and "Keep going toward" in page
    line = rules.legal_line_ids(state, seat.position)[0]
    hand = state.hands[seat.position]
    own = rules.network(state, seat.position)
    number = next(n for n, city in enumerate(hand, 1) if state.board.city_point(city) not in own)
    chosen = {"all": "all", "city": str(number), "route": "route"}[then]
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            seat_path(seat), {"version": game.version, "line1": line, "then": chosen}
        )
    # The turn's line went in by hand; the plan comes after it, and is not ended by it.
    moved = game.events.get(seq=game.version + 1)
    assert (moved.type, moved.data["seat"]) == (rules.TRACK_BUILT, seat.position)
    assert not Plan.objects.filter(seat=seat).exists()
    if then == "route":
        assert response.url.endswith("/plan/route/")
        return
    # A plan by tap asks once: its own page, whose button sets it.
    asked = {"all": 0, "city": number}[then]
    assert response.url.endswith(f"/plan/{asked}/")
    page = client.get(response.url).content.decode()
    assert "Your move is in." in page
    form = re.search(r'<form method="post".*?</form>', page, re.S).group(0)
    fields = dict(re.findall(r'name="(\w+)" value="([^"]*)"', form))
    fields.pop("csrfmiddlewaretoken", None)
    client.post(reverse("games:plan", args=[token_of(seat)]), fields)
    plan = Plan.objects.get(seat=seat)
    assert plan.stopped == ""
    assert (plan.form, plan.city) == (
        (rules.plans.ALL, "") if then == "all" else (rules.plans.CITY, hand[number - 1])
    )


def test_a_then_that_names_no_city_of_ones_hand_is_refused_and_the_move_kept(client):
    game = building_game()
    state = services.load_state(game)
    seat = game.seats.get(position=state.seat_to_move)
    line = rules.legal_line_ids(state, seat.position)[0]
    version = game.version
    response = client.post(seat_path(seat), {"version": version, "line1": line, "then": "9"})
    assert "/plan/" not in response.url
    game.refresh_from_db()
    assert game.version == version + 1 and not Plan.objects.exists()
    page = client.get(seat_path(seat)).content.decode()
    assert "A plan heads for a city of your own." in page


def test_the_plan_after_a_turn_is_offered_in_german(client):
    game = GameFactory(language="de")
    for _turn in range(3):
        game = play_turn(game)
    seat = game.seats.get(position=services.load_state(game).seat_to_move)
    page = client.get(seat_path(seat)).content.decode()
    then = page.split('id="id_then"')[1].split("</select>")[0]
    assert "Meinen nächsten Zug spiele ich selbst" in then and "Weiter auf" in then
    assert "Alle meine Städte" in then and "Einer Route folgen" in then


def panel_of(page: str) -> str:
    return page.split('id="build-plan"')[1].split("</section>")[0]


def confirm_form(page: str) -> dict[str, str]:
    """The fields the confirmation page's one button posts."""
    form = re.search(r'<form method="post".*?</form>', page, re.S).group(0)
    fields = dict(re.findall(r'name="(\w+)" value="([^"]*)"', form))
    fields.pop("csrfmiddlewaretoken", None)
    return fields


def test_every_offer_of_the_panel_asks_once_on_its_own_page_before_it_sets(client):
    game = building_game()
    seat = not_to_move(game)
    token = token_of(seat)
    state = services.load_state(game)
    hand = state.hands[seat.position]
    panel = panel_of(client.get(seat_path(seat)).content.decode())
    # No tap on the panel sets a plan: each form that would is hidden until its link
    # opens it (the script's way), and each link opens a page that asks (without one).
    forms = re.findall(r"<form [^>]*>", panel)
    assert forms and all("hidden" in form for form in forms)
    links = [
        html.unescape(href)
        for href in re.findall(r'class="button plan-offer" href="([^"]+)"', panel)
    ]
    missing = [
        n
        for n, city in enumerate(hand, 1)
        if state.board.city_point(city) not in rules.network(state, seat.position)
    ]
    asked = [reverse("games:plan_confirm", args=[token, n]) for n in missing]
    assert links == [*asked, reverse("games:plan_confirm", args=[token, 0])]
    assert not any(city in link for link in links for city in hand)  # a number, never a name
    for link in links:
        page = client.get(link).content.decode()
        assert "Set this plan" in page and "until something changes?" in page
        assert not Plan.objects.filter(seat=seat, stopped="").exists()  # a GET sets nothing
        client.post(reverse("games:plan", args=[token]), confirm_form(page))
        plan = Plan.objects.get(seat=seat, stopped="")
        number = int(link.rstrip("/").rsplit("/", 1)[1])
        assert (plan.form, plan.city) == (
            (rules.plans.CITY, hand[number - 1]) if number else (rules.plans.ALL, "")
        )
        plans.cancel_plan(seat)


@pytest.mark.parametrize(
    "language, question",
    [
        ("en", "Place your start marker at %s, then keep building toward all your cities"),
        ("de", "Deinen Startstein auf %s setzen und dann in jedem deiner Züge"),
    ],
)
def test_a_planned_start_marker_asks_once_in_either_language(client, language, question):
    game = GameFactory(language=language)  # everyone still to place a start marker
    seat = not_to_move(game)
    token = token_of(seat)
    state = services.load_state(game)
    city = state.hands[seat.position][1]
    panel = panel_of(client.get(seat_path(seat)).content.decode())
    link = reverse("games:plan_confirm", args=[token, 2]) + "?start=1"
    assert f'href="{html.escape(link)}"' in panel
    page = client.get(link).content.decode()
    assert question % city in html.unescape(page)
    assert not Plan.objects.exists()
    client.post(reverse("games:plan", args=[token]), confirm_form(page))
    point = state.board.city_point(city)
    assert Plan.objects.get(seat=seat).starts == [point]
    # Once the marker is down there is nothing left to ask.
    placed = building_game()
    seat = not_to_move(placed)
    response = client.get(reverse("games:plan_confirm", args=[token_of(seat), 1]) + "?start=1")
    assert response.status_code == 409 and "Set this plan" not in response.content.decode()


def two_single_lines(state, position: int) -> tuple[int, int]:
    """A route of two single lines, the second from the first's far end."""
    lines = state.board.lines
    return next(
        (first, second)
        for first in plan_panel.route_next(state, position, [])
        for second in plan_panel.route_next(state, position, [first])
        if lines[first][2] == 1 and lines[second][2] == 1
    )


@pytest.mark.parametrize(
    "language, marked, box",
    [("en", "(coloured track)", "Coloured track"), ("de", "(Farbschiene)", "Farbschiene")],
)
def test_a_route_marks_lines_as_coloured_track_on_its_page_and_the_plan_keeps_them(
    client, language, marked, box
):
    game = building_game(options={"exclusive_tracks": 3})
    seat = not_to_move(game)
    seat.language = language
    seat.save(update_fields=["language"])
    token = token_of(seat)
    state = services.load_state(game)
    first, second = two_single_lines(state, seat.position)
    url = reverse("games:plan_route", args=[token])
    page = client.get(url, {"lines": f"{first},{second}", "coloured": str(first)})
    text = page.content.decode()
    assert page.status_code == 200
    listed = text.split('id="route-lines"')[1].split("</ol>")[0]
    boxes = dict(re.findall(r'type="checkbox" name="coloured" value="(\d+)"( checked)?', listed))
    assert boxes == {str(first): " checked", str(second): ""}
    assert box in text
    # Its next turn says which line gets coloured track.
    assert marked in text.split('id="route-next"')[1].split("</p>")[0]
    # Adding a line keeps the marks.
    assert f'name="coloured" value="{first}"' in text.split('class="route-add"')[1]
    assert not Plan.objects.exists()
    # The ticked boxes post one value each.
    client.post(
        reverse("games:plan", args=[token]),
        {"what": "route", "route": f"{first},{second}", "coloured": [str(first)]},
    )
    plan = Plan.objects.get(seat=seat)
    assert (plan.route, plan.coloured) == ([first, second], [first])
    board_page = client.get(seat_path(seat)).content.decode()
    way = board_page.split('<ol class="plan-path">')[1].split("</ol>")[0]
    assert way.count(marked) == 1


def test_a_game_without_coloured_track_offers_no_marks_on_a_route(client):
    game = building_game()
    seat = not_to_move(game)
    state = services.load_state(game)
    first, second = two_single_lines(state, seat.position)
    url = reverse("games:plan_route", args=[token_of(seat)])
    text = client.get(url, {"lines": f"{first},{second}", "coloured": str(first)}).content.decode()
    assert (
        'name="coloured"' not in text
        and "coloured track" not in text.lower().split('id="route-next"')[1].split("</p>")[0]
    )
    route_data = plan_panel.route_data(state, seat.position, token_of(seat))
    assert route_data["coloured_left"] == 0
