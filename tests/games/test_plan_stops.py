"""Every way a build plan stops, with the plan set as players set it: on the board page
(a route, or all my cities) and by reply ("plan: all", "plan: alle"), in English and
German. The player hears why in their your-turn email and on their board page, in their
language; a plan that plays sends its player nothing. (Services' own cases:
tests/games/services/test_plans.py; the step function's: tests/games/rules/test_plans.py.)"""

import random
from datetime import timedelta
from email import message_from_bytes, policy

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django.utils.html import escape

from accounts.models import User
from games import rules, services
from games.bots import greedy_move, simulate
from games.links import seat_path
from games.models import Game, Plan, PlanTurn, Seat
from games.rules import plans as rule_plans
from games.services import plans, random_deal
from games.words import plans as plan_words
from notifications import emails, inbound, reply_addresses
from notifications.models import Message
from tests.conftest import delivered
from tests.factories import GameFactory, simulated_game
from tests.notifications.replies import raw_reply

pytestmark = pytest.mark.django_db

LANGUAGES = ["en", "de"]
SEED = 3


@pytest.fixture(autouse=True)
def inbound_domain(settings):
    settings.RAILMAIL_INBOUND_DOMAIN = "in.railmail.example.org"


@pytest.fixture(autouse=True)
def same_deals(monkeypatch):
    """The same deals every run: each test's position is one it was written for."""
    monkeypatch.setattr(random_deal, "rng", random.Random(SEED))


def fresh(game: Game) -> Game:
    return Game.objects.get(pk=game.pk)


def seat_at(game: Game, position: int) -> Seat:
    return Seat.objects.get(game_id=game.pk, position=position)


def hand_move(game: Game) -> Game:
    game = fresh(game)
    state = services.load_state(game)
    seat = seat_at(game, state.seat_to_move)
    return services.submit_move(game, seat, greedy_move(state, seat.position), game.version)


def until_turn_of(game: Game, position: int, capture) -> Game:
    while fresh(game).seat_to_move != position:
        with capture(execute=True):
            hand_move(game)
    return fresh(game)


def building_game(language: str) -> Game:
    game = GameFactory(language=language)
    for _ in range(3):
        game = hand_move(game)
    return fresh(game)


def only_emailed(game: Game, position: int) -> None:
    """Only the plan's owner has an address: the others' emails (each with a picture of
    the board) would cost the test most of its time."""
    Seat.objects.filter(game_id=game.pk).exclude(position=position).update(email="")


def set_by_page(seat: Seat, **data) -> None:
    token = seat_path(seat).split("/")[2]
    assert Client().post(reverse("games:plan", args=[token]), data).status_code == 302


def set_all(channel: str, seat: Seat, language: str) -> None:
    """All my cities, set on the board page or by reply in the player's language."""
    if channel == "page":
        set_by_page(seat, what="all")
        return
    game = fresh(seat.game)
    to = reply_addresses.reply_address(seat, game.version)
    words = "Plan: alle" if language == "de" else "plan: all"
    raw = raw_reply(sender=seat.email, to=to, first_lines=words, client=f"gmail-{language}")
    assert inbound.receive(message_from_bytes(raw, policy=policy.default)).code == "plan-set"


def told(game: Game, position: int, reason: str, language: str, *, page: bool = True) -> None:
    """The player hears why the plan stopped: in the your-turn email the stop brought, and
    (``page``) on their board page, in their language."""
    seat = seat_at(game, position)
    [email] = Message.objects.filter(seat=seat, kind=emails.YOUR_TURN, facts__plan_stopped=reason)
    with translation.override(language):
        words = plan_words.why_stopped(reason)
    assert words in delivered(email).body_text
    if page:
        assert escape(words) in Client().get(seat_path(seat)).content.decode()


def cheapest_way(state, position: int, target: int) -> list[int]:
    """The unbuilt lines of a cheapest way from the seat's network to point ``target``."""
    board = state.board
    own = rules.network(state, position)
    _dist, via = rules.cheapest_paths(board, state.built, position, own, [target])
    lines, point = [], target
    while point not in own and via[point] >= 0:
        if via[point] not in state.built:
            lines.append(via[point])
        a, b, _cost = board.lines[via[point]]
        point = a if b == point else b
    return lines[::-1]


# --- Routes (set on the board page: a reply names a city or all, never a route) ---


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_route_line_taken_between_the_plans_turns(django_capture_on_commit_callbacks, language):
    game = building_game(language)
    state = services.load_state(game)
    taker = state.seat_to_move  # moves last of the three after the owner's turn
    owner = (taker + 1) % 3
    route = cheapest_way(state, owner, state.start_point(taker))
    only_emailed(game, owner)
    assert len(route) >= 3
    set_by_page(seat_at(game, owner), what="route", route=",".join(map(str, route)))
    with django_capture_on_commit_callbacks(execute=True):
        hand_move(game)  # the owner's turn comes after it: the plan plays it
    assert PlanTurn.objects.filter(game=game, seat=owner).count() == 1
    with django_capture_on_commit_callbacks(execute=True):
        hand_move(game)  # the third seat
    game = fresh(game)
    assert game.seat_to_move == taker
    board = services.load_state(game).board
    with django_capture_on_commit_callbacks(execute=True):
        services.submit_move(
            game, seat_at(game, taker), rules.Build((board.line_points(route[-1]),)), game.version
        )
    game = fresh(game)
    assert game.seat_to_move == owner  # the plan stopped: the turn waits for its player
    assert Plan.objects.get(seat__game=game, seat__position=owner).stopped == rule_plans.LINE_TAKEN
    told(game, owner, rule_plans.LINE_TAKEN, language)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_cheaper_way_opened_by_anothers_track(django_capture_on_commit_callbacks, language):
    game = building_game(language)
    state = services.load_state(game)
    builder = state.seat_to_move
    owner = (builder + 1) % 3
    only_emailed(game, owner)
    board = state.board
    own = rules.network(state, owner)
    theirs = rules.network(state, builder)
    dist, via = rules.cheapest_paths(board, state.built, owner, own)
    # A line the builder may build, from their network to a point the owner's cheapest
    # way reaches by another line: once built, the owner gets there cheaper.
    found = next(
        (line, far)
        for line in rules.legal_line_ids(state, builder)
        for near, far in [board.lines[line][:2], board.lines[line][1::-1]]
        if near in theirs
        and far not in own | theirs
        and dist[near] < dist[far] < rules.INFINITY
        and via[far] != line
    )
    line, far = found
    route = cheapest_way(state, owner, far)
    assert route and line not in route
    set_by_page(seat_at(game, owner), what="route", route=",".join(map(str, route)))
    assert Plan.objects.get(seat__game=game, seat__position=owner).slack == 0
    with django_capture_on_commit_callbacks(execute=True):
        services.submit_move(
            game, seat_at(game, builder), rules.Build((board.line_points(line),)), game.version
        )
    game = fresh(game)
    assert game.seat_to_move == owner and not PlanTurn.objects.filter(game=game).exists()
    plan = Plan.objects.get(seat__game=game, seat__position=owner)
    assert plan.stopped == rule_plans.CHEAPER_WAY
    told(game, owner, rule_plans.CHEAPER_WAY, language)


# --- All my cities, set on the board page or by reply ---

CHANNELS = [(channel, language) for channel in ("page", "reply") for language in LANGUAGES]


def near_round_end(language: str, capture, channel: str, vacation: bool = False):
    """A game three moves before round 1 is scored; its seat to move sets all my cities
    (on ``vacation`` if asked), which plays at once. Played on until that seat's turn in
    round 2; returns the game and the seat's position."""
    events = simulate("transamerica", 3, random.Random(0))
    second = [n for n, event in enumerate(events) if event["type"] == "round_started"][1]
    game = simulated_game(until=second - 4)
    Game.objects.filter(pk=game.pk).update(language=language)
    owner = seat_at(game, services.load_state(game).seat_to_move)
    only_emailed(game, owner.position)
    if vacation:
        user = User.objects.create_user(owner.email, password="x-long-password-1")
        Seat.objects.filter(pk=owner.pk).update(user=user)
        services.start_vacation(user, 3)
        owner = seat_at(game, owner.position)
    with capture(execute=True):
        set_all(channel, owner, language)
    assert PlanTurn.objects.filter(game=game, seat=owner.position).count() == 1
    while services.load_state(fresh(game)).round == 1:
        with capture(execute=True):
            hand_move(game)
    return until_turn_of(game, owner.position, capture), owner.position


@pytest.mark.parametrize(
    "channel, language, vacation",
    [("page", "en", False), ("reply", "de", False), ("page", "de", True), ("reply", "en", True)],
)
def test_a_round_ending_on_vacation_or_not(
    django_capture_on_commit_callbacks, channel, language, vacation
):
    game, owner = near_round_end(language, django_capture_on_commit_callbacks, channel, vacation)
    assert services.load_state(game).round == 2 and game.seat_to_move == owner
    seat = seat_at(game, owner)
    [email] = Message.objects.filter(seat=seat, kind=emails.YOUR_TURN, facts__plan_stopped__gt="")
    if vacation:  # the plan played on during it; the stop email waits for its end
        assert email.next_attempt_at >= seat.user.vacation_until - timedelta(seconds=1)
        assert email.status == Message.Status.PENDING
    told(game, owner, rule_plans.ROUND_ENDED, language)


@pytest.mark.parametrize("channel, language", CHANNELS)
def test_a_stale_plan_after_a_restore(django_capture_on_commit_callbacks, channel, language):
    game = building_game(language)
    owner = (services.load_state(game).seat_to_move + 1) % 3
    only_emailed(game, owner)
    set_all(channel, seat_at(game, owner), language)
    Plan.objects.filter(seat__game=game).update(log_digest="0" * 64)  # a restored backup
    game = until_turn_of(game, owner, django_capture_on_commit_callbacks)
    assert not PlanTurn.objects.exists()
    assert Plan.objects.get(seat__game=game).stopped == plans.STALE
    told(game, owner, plans.STALE, language)


@pytest.mark.parametrize("channel, language", CHANNELS)
def test_a_handover_to_a_bot(django_capture_on_commit_callbacks, channel, language):
    game = building_game(language)
    Game.objects.filter(pk=game.pk).update(bot_takeover_after=1, on_timeout=Game.OnTimeout.BOT)
    game = fresh(game)
    owner = seat_at(game, game.seat_to_move)
    only_emailed(game, owner.position)
    set_all(channel, owner, language)  # its turn is not played yet: the clock runs out first
    with django_capture_on_commit_callbacks(execute=True):
        services.record_timeout(game, owner, game.version)
    # Ended, never played for the bot; the seat's player is told by the bot's email.
    assert not Plan.objects.filter(seat=owner, stopped="").exists()
    assert not PlanTurn.objects.exists()
    [kept] = Message.objects.filter(seat=owner, kind=emails.BOT_TOOK_OVER)
    assert delivered(kept).status == Message.Status.SENT


@pytest.mark.parametrize("channel, language", CHANNELS)
def test_a_plan_played_turn_sends_its_player_nothing(
    django_capture_on_commit_callbacks, channel, language
):
    game = building_game(language)
    owner = seat_at(game, (services.load_state(game).seat_to_move + 1) % 3)
    only_emailed(game, owner.position)
    set_all(channel, owner, language)
    before = set(Message.objects.filter(seat=owner).values_list("pk", flat=True))
    with django_capture_on_commit_callbacks(execute=True):
        hand_move(game)
    assert PlanTurn.objects.filter(game=game, seat=owner.position).count() == 1
    assert fresh(game).seat_to_move != owner.position
    after = set(Message.objects.filter(seat=owner).values_list("pk", flat=True))
    assert after == before
