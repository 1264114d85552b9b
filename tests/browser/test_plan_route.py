"""A route to follow, picked on the board page (games/static/games/plan.js), confirmed once
on its own page (which says its next turn in words), then drawn on the owner's board and
cancelled: by thumb at 390 px in German while another player is to move, by mouse at
1280 px in English on the player's own turn (the plan plays it at once, and the picks
never touch the move form). And while others move, in a game with coloured track: the
board zooms, a route's line is marked as coloured track, and an offer of the panel asks
once in the panel. Screenshots land in test-artifacts/."""

import random

import pytest
from django.utils import translation
from django.utils.translation import gettext, pgettext

from games import rules, services
from games.bots import simulate
from games.links import seat_path
from games.models import Game, Plan
from games.pages import plan_panel
from games.services import SeatSpec, create_game, load_state
from tests.browser.axe import serious_violations
from tests.browser.board_moves import board_place_at
from tests.factories import simulated_game

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}
# A 3-seat bot game 12 events in: every start marker placed, a few lines built.
SEED, UNTIL = 2, 12


def line_on_screen(page, line: int) -> tuple[float, float]:
    """Scroll the middle of ``line`` of the live board into view; where it is on screen."""
    x, y = page.evaluate(
        """(line) => {
          const data = JSON.parse(document.getElementById("route-data").textContent);
          const [a, b] = data.lines[line];
          return [
            (data.positions[a][0] + data.positions[b][0]) / 2,
            (data.positions[a][1] + data.positions[b][1]) / 2,
          ];
        }""",
        line,
    )
    return board_place_at(page, x, y)


def a_route(state, position: int, length: int) -> list[int]:
    """The first ``length`` lines of a cheapest way to the seat's farthest city, each one
    that the page lets follow the lines before it."""
    ways = [
        plan_panel.path(state, position, Plan(form=rules.plans.CITY, city=city))
        for city in state.hands[position]
    ]
    way = max(ways, key=len)[:length]
    assert len(way) == length
    for n, line in enumerate(way):
        assert line in plan_panel.route_next(state, position, way[:n])
    return way


def planned(page) -> list[int]:
    return [
        int(n)
        for n in page.locator("#board-frame .plan-path line.planned").evaluate_all(
            "nodes => nodes.map(n => n.dataset.planned)"
        )
    ]


@pytest.mark.parametrize("size, language", [("phone", "de"), ("desktop", "en")])
def test_a_route_picked_on_the_board_is_confirmed_drawn_and_cancelled(
    browser, live_server, artifacts, size, language
):
    game = simulated_game(seed=SEED, until=UNTIL)
    Game.objects.filter(pk=game.pk).update(language=language)
    state = load_state(game)
    phone = size == "phone"
    # On the phone, someone not to move; at the desk, the player whose turn it is.
    position = (state.seat_to_move + 1) % state.seat_count if phone else state.seat_to_move
    seat = game.seats.get(position=position)
    route = a_route(state, position, 3)
    context = browser.new_context(viewport=SIZES[size], is_mobile=phone, has_touch=phone)
    page = context.new_page()
    page.goto(live_server.url + seat_path(seat))
    with translation.override(language):
        if not phone:
            # On its own turn the move form offers a plan for the turns after this one;
            # seen at 390 px too.
            then = page.locator("#id_then")
            assert "all" in then.evaluate("n => [...n.options].map(o => o.value)")
            page.set_viewport_size(SIZES["phone"])
            then.scroll_into_view_if_needed()
            page.screenshot(path=str(artifacts / f"plan-then-phone-{language}.png"))
            page.set_viewport_size(SIZES["desktop"])
        page.locator("#route-start").click()
        assert page.locator("#route-bar").is_visible()
        # A tap far from any line that continues the route is refused, in words.
        far = next(
            line
            for line in range(len(state.board.lines))
            if line not in plan_panel.route_next(state, position, [])
            and all(p not in rules.network(state, position) for p in state.board.lines[line][:2])
        )
        (page.touchscreen.tap if phone else page.mouse.click)(*line_on_screen(page, far))
        assert page.locator("#route-refusal").inner_text() == gettext(
            "That line does not continue your route: pick one from its end."
        )
        for line in route:
            (page.touchscreen.tap if phone else page.mouse.click)(*line_on_screen(page, line))
        drawn = page.locator("#board-frame .route-pick").evaluate_all(
            "nodes => nodes.map(n => Number(n.dataset.routeLine))"
        )
        assert drawn == route
        if not phone:  # the move picker took none of the route's taps
            assert page.locator("select[name=line1]").input_value() == ""
        assert page.locator("#route-refusal").is_hidden()
        page.screenshot(path=str(artifacts / f"plan-route-picked-{size}-{language}.png"))
        # Review: the route's page, its next turn in words, one button to confirm.
        with page.expect_navigation():
            page.locator("#route-review").click()
        assert gettext("Its next turn builds %(lines)s.").split("%")[0] in page.inner_text(
            "#route-next"
        )
        assert page.locator("#route-lines li").count() == len(route)
        assert serious_violations(page) == []
        page.screenshot(path=str(artifacts / f"plan-route-confirm-{size}-{language}.png"))
        assert not Plan.objects.filter(seat=seat).exists()
        with page.expect_navigation():
            page.locator("#route-confirm").click()
        plan = Plan.objects.get(seat=seat)
        assert (plan.form, plan.route) == (rules.plans.ROUTE, route)
        game.refresh_from_db()
        after = load_state(game)
        left = [line for line in route if line not in after.built]
        if not phone:
            # Its own turn: the plan played it at once, and what is left is drawn.
            assert after.seat_to_move != position and len(left) < len(route)
        assert planned(page) == left and left
        assert gettext("Your plan: follow your route.") in page.inner_text(".build-plan")
        board = page.locator("#board-frame")
        board.screenshot(path=str(artifacts / f"plan-route-drawn-board-{size}-{language}.png"))
        page.locator(".build-plan").scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / f"plan-route-drawn-{size}-{language}.png"))
        scroll, width = page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        assert scroll <= width
        # Cancelled at any time: gone from the board.
        with page.expect_navigation():
            page.get_by_role("button", name=gettext("Cancel the plan")).click()
        assert planned(page) == []
        assert gettext("You cancelled your plan.") in page.inner_text(".build-plan")
    context.close()


def coloured_game(until: int):
    """A 3-seat game with three coloured tracks a player, ``until`` events in: the bots'
    moves of a game without them (greedy bots spend theirs at once), so all are left."""
    options = rules.Options(exclusive_tracks=3)
    events = simulate("transamerica", 3, random.Random(SEED))[:until]
    players = [SeatSpec(f"Player {n}", f"seat{n}@example.com") for n in range(3)]
    return services.append_events(create_game("transamerica", options, players), events[1:])


@pytest.mark.parametrize("size, language", [("phone", "de"), ("desktop", "en")])
def test_while_others_move_the_board_zooms_a_line_is_marked_coloured_and_an_offer_asks_once(
    browser, live_server, artifacts, size, language
):
    game = coloured_game(UNTIL)
    Game.objects.filter(pk=game.pk).update(language=language)
    state = load_state(game)
    phone = size == "phone"
    position = (state.seat_to_move + 1) % state.seat_count  # not this seat's turn
    seat = game.seats.get(position=position)
    route = a_route(state, position, 2)
    context = browser.new_context(viewport=SIZES[size], is_mobile=phone, has_touch=phone)
    page = context.new_page()
    page.goto(live_server.url + seat_path(seat))
    tap = page.touchscreen.tap if phone else page.mouse.click
    frame = page.locator("#board-frame")
    with translation.override(language):
        assert page.locator("#move-form").count() == 0  # another player is to move
        # The zoom works at any turn.
        page.get_by_role("button", name=gettext("Zoom in")).click()
        assert "zoom-2" in frame.get_attribute("class")
        # An offer asks once, in the panel: nothing is set until its button.
        offer = page.locator("#build-plan a.plan-offer[data-ask=plan-ask-all]")
        offer.click()
        ask = page.locator("#plan-ask-all")
        assert ask.is_visible() and offer.get_attribute("aria-expanded") == "true"
        assert not Plan.objects.filter(seat=seat).exists()
        assert serious_violations(page) == []
        ask.scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / f"plan-offer-asks-{size}-{language}.png"))
        ask.get_by_role("button", name=pgettext("do not set the build plan", "Not now")).click()
        assert ask.is_hidden() and not Plan.objects.filter(seat=seat).exists()
        # A route picked on the board, its first line marked as coloured track.
        page.locator("#route-start").click()
        if phone:  # picking zooms in on the network
            assert "zoom-3" in frame.get_attribute("class")
        for line in route:
            tap(*line_on_screen(page, line))
        page.locator(f'#route-list input[data-route-line="{route[0]}"]').check()
        coloured = page.locator("#board-frame .route-pick.coloured").evaluate_all(
            "nodes => nodes.map(n => Number(n.dataset.routeLine))"
        )
        assert coloured == [route[0]]
        page.screenshot(path=str(artifacts / f"plan-route-coloured-{size}-{language}.png"))
        with page.expect_navigation():
            page.locator("#route-review").click()
        assert page.locator(f'#route-lines input[value="{route[0]}"]').is_checked()
        assert page.locator(f'#route-lines input[value="{route[1]}"]').is_checked() is False
        words = pgettext("a line of a build plan", "%(line)s (coloured track)")
        assert words.split(")s", 1)[1] in page.inner_text("#route-next")
        assert serious_violations(page) == []
        page.screenshot(path=str(artifacts / f"plan-route-coloured-confirm-{size}-{language}.png"))
        with page.expect_navigation():
            page.locator("#route-confirm").click()
        plan = Plan.objects.get(seat=seat)
        assert (plan.route, plan.coloured) == (route, [route[0]])
        # The offer's own button, once asked, sets the plan.
        page.locator("#build-plan a.plan-offer[data-ask=plan-ask-all]").click()
        with page.expect_navigation():
            ask.get_by_role("button", name=gettext("Set this plan")).click()
        plan.refresh_from_db()
        assert plan.form == rules.plans.ALL
    context.close()
