"""Build plans at the table (games.services.plans): real games, through the one write path,
with the commits' follow-up work run as it is after a real commit."""

import random
from datetime import timedelta
from unittest import mock

import pytest
from django.utils import timezone

from accounts.models import User
from games import rules, services
from games.bots import greedy_move, simulate
from games.models import Event, Game, Plan, PlanTurn, Seat
from games.rules import plans as rule_plans
from games.services import GameMovedOn, autoplay, plans
from games.services.event_log import seats_at_table
from notifications import emails
from notifications.models import Message
from tests.conftest import delivered
from tests.factories import GameFactory, simulated_game

pytestmark = pytest.mark.django_db


def fresh(game: Game) -> Game:
    return Game.objects.get(pk=game.pk)


def seat_at(game: Game, position: int) -> Seat:
    return game.seats.get(position=position)


def hand_move(game: Game) -> Game:
    """The greedy move of whoever is to move, by hand."""
    game = fresh(game)
    state = services.load_state(game)
    seat = seat_at(game, state.seat_to_move)
    return services.submit_move(game, seat, greedy_move(state, seat.position), game.version)


def building_game(**kwargs) -> Game:
    """A 3-seat game with every start marker placed, seat 0... to move (by hand)."""
    game = GameFactory(**kwargs)
    for _seat in range(3):
        game = hand_move(game)
    return fresh(game)


def far_city(game: Game, position: int) -> str:
    """A city of the seat's hand not joined to its network yet."""
    state = services.load_state(game)
    own = rules.network(state, position)
    return next(c for c in state.hands[position] if state.board.city_point(c) not in own)


def turn_emails(seat: Seat) -> list[Message]:
    return list(Message.objects.filter(seat=seat, kind=emails.YOUR_TURN).order_by("pk"))


def next_to_move_after(game: Game) -> int:
    state = services.load_state(game)
    return (state.seat_to_move + 1) % state.seat_count


@pytest.mark.parametrize("time_per_move", [None, timedelta(days=1)], ids=["untimed", "timed"])
def test_a_plan_plays_its_turn_at_once_and_its_player_gets_no_email(
    django_capture_on_commit_callbacks, time_per_move
):
    # A timed game (the new-game form's default) too: the plan's seat keeps its
    # player's deadline, and its turn does not wait for it.
    game = building_game(time_per_move=time_per_move)
    owner = seat_at(game, next_to_move_after(game))
    plans.set_plan(owner, rule_plans.ALL)
    before = len(turn_emails(owner))
    with django_capture_on_commit_callbacks(execute=True):
        moved = hand_move(game)
    game = fresh(game)
    # The hand move, then the plan's move at once: the turn has passed on.
    assert game.version == moved.version + 1
    assert game.seat_to_move != owner.position
    [turn] = PlanTurn.objects.filter(game=game)
    assert (turn.seq, turn.seat) == (game.version, owner.position)
    assert game.events.get(seq=turn.seq).data["seat"] == owner.position
    assert len(turn_emails(owner)) == before
    assert seat_at(game, owner.position).plan.stopped == ""


def test_where_take_backs_are_allowed_a_plan_waits_for_the_window_then_plays(
    django_capture_on_commit_callbacks,
):
    game = building_game(time_per_move=timedelta(days=1), options={"take_backs": True})
    owner = seat_at(game, next_to_move_after(game))
    plans.set_plan(owner, rule_plans.ALL)
    with django_capture_on_commit_callbacks(execute=True):
        moved = hand_move(game)
    assert fresh(game).version == moved.version  # the mover may still take it back
    last = moved.events.order_by("-seq").first()
    seats = seats_at_table(game)
    assert autoplay.turn_to_play(fresh(game), seats).position == owner.position
    assert autoplay.turn_due(fresh(game), seats[owner.position], seats) == (
        last.created_at + timedelta(minutes=2)
    )
    assert autoplay.play_bot_turns(game.pk, moved.version, limit=1)[0] == 0  # not yet
    later = last.created_at + timedelta(minutes=3)
    with mock.patch("django.utils.timezone.now", return_value=later):  # the window is over
        played, after = autoplay.play_bot_turns(game.pk, moved.version, limit=1)
    assert played == 1 and after.version == moved.version + 1
    assert PlanTurn.objects.filter(game=game, seat=owner.position).exists()


def test_a_plan_set_on_ones_own_turn_plays_at_once(django_capture_on_commit_callbacks):
    game = building_game()
    owner = seat_at(game, game.seat_to_move)
    with django_capture_on_commit_callbacks(execute=True):
        plans.set_plan(owner, rule_plans.CITY, city=far_city(game, owner.position))
    assert fresh(game).version == game.version + 1
    assert PlanTurn.objects.filter(game=game, seat=owner.position).exists()


def test_the_plan_is_kept_with_the_version_and_digest_it_was_set_at_and_never_logged():
    game = building_game()
    owner = seat_at(game, next_to_move_after(game))
    events_before = game.events.count()
    plan = plans.set_plan(owner, rule_plans.ALL)
    assert (plan.version, plan.log_digest) == (game.version, game.log_digest)
    assert game.events.count() == events_before


@pytest.mark.parametrize(
    ("form", "details", "code"),
    [
        (rule_plans.CITY, {"city": "Nowhere"}, "not_your_city"),
        (rule_plans.ROUTE, {"route": []}, "bad_route"),
        (rule_plans.ROUTE, {"route": [10**6]}, "bad_route"),
        (rule_plans.START, {"starts": [1]}, "start_placed"),
    ],
)
def test_a_plan_that_cannot_be_set_is_refused_with_a_reason(form, details, code):
    game = building_game()
    with pytest.raises(plans.PlanError) as refused:
        plans.set_plan(seat_at(game, 0), form, **details)
    assert refused.value.code == code
    assert not Plan.objects.exists()


def stop_email(owner: Seat) -> Message:
    [email] = [m for m in turn_emails(owner) if m.facts.get("plan_stopped")]
    return email


def play_until_turn_of(game: Game, position: int, capture) -> Game:
    while fresh(game).seat_to_move != position:
        with capture(execute=True):
            hand_move(game)
    return fresh(game)


def test_a_route_whose_line_another_seat_takes_stops_and_says_so(
    django_capture_on_commit_callbacks,
):
    game = building_game()
    state = services.load_state(game)
    board = state.board
    owner_pos = next_to_move_after(game)
    other_pos = state.seat_to_move
    # A route for the owner that ends on a line from the other seat's start marker.
    other_start = state.start_point(other_pos)
    taken = next(line for line in board.point_lines[other_start] if board.lines[line][2] == 1)
    plan = plans.set_plan(seat_at(game, owner_pos), rule_plans.ROUTE, route=[taken])
    with django_capture_on_commit_callbacks(execute=True):
        game = services.submit_move(
            game,
            seat_at(game, other_pos),
            rules.Build((board.line_points(taken),)),
            game.version,
        )
    owner = seat_at(game, owner_pos)
    game = play_until_turn_of(game, owner_pos, django_capture_on_commit_callbacks)
    email = stop_email(owner)
    assert email.facts["plan_stopped"] == rule_plans.LINE_TAKEN
    plan.refresh_from_db()
    assert plan.stopped == rule_plans.LINE_TAKEN
    text = delivered(email)
    assert text.status == Message.Status.SENT
    assert "another player built on a line of your route" in text.body_text


def test_the_stop_email_is_worded_in_german(django_capture_on_commit_callbacks):
    game = building_game(language="de")
    owner_pos = next_to_move_after(game)
    plan = plans.set_plan(seat_at(game, owner_pos), rule_plans.ALL)
    Plan.objects.filter(pk=plan.pk).update(log_digest="0" * 64)  # a restored backup
    game = play_until_turn_of(game, owner_pos, django_capture_on_commit_callbacks)
    email = delivered(stop_email(seat_at(game, owner_pos)))
    assert email.facts["plan_stopped"] == plans.STALE
    assert "Dein Plan" in email.body_text


def test_a_plan_set_on_a_log_the_game_no_longer_has_never_plays(
    django_capture_on_commit_callbacks,
):
    game = building_game()
    owner_pos = next_to_move_after(game)
    plan = plans.set_plan(seat_at(game, owner_pos), rule_plans.ALL)
    Plan.objects.filter(pk=plan.pk).update(log_digest="0" * 64)  # a restored backup
    game = play_until_turn_of(game, owner_pos, django_capture_on_commit_callbacks)
    assert not PlanTurn.objects.exists()
    assert fresh(game).seat_to_move == owner_pos
    plan.refresh_from_db()
    assert plan.stopped == plans.STALE
    assert stop_email(seat_at(game, owner_pos)).facts["plan_stopped"] == plans.STALE


def test_a_move_by_hand_ends_the_plan_and_the_race_gives_one_move(
    django_capture_on_commit_callbacks,
):
    game = building_game()
    owner = seat_at(game, game.seat_to_move)
    plan = plans.set_plan(owner, rule_plans.ALL)  # its task is not run: a race follows
    version = game.version
    state = services.load_state(game)
    with django_capture_on_commit_callbacks(execute=True):
        services.submit_move(game, owner, greedy_move(state, owner.position), version)
    # The plan's step for the same turn comes second: nothing more is played.
    assert plans.play_turn(fresh(game), owner, version) is None
    assert fresh(game).version == version + 1
    # The player knows why: the plan is dropped, and its seat no longer reads as planned.
    assert not Plan.objects.filter(pk=plan.pk).exists()
    assert not seat_at(game, owner.position).has_plan
    assert not PlanTurn.objects.exists()


def test_the_plan_first_then_the_hand_move_is_refused(django_capture_on_commit_callbacks):
    game = building_game()
    owner = seat_at(game, game.seat_to_move)
    plans.set_plan(owner, rule_plans.ALL)
    version = game.version
    state = services.load_state(game)
    hand = greedy_move(state, owner.position)
    assert plans.play_turn(fresh(game), owner, version) is not None
    with pytest.raises(GameMovedOn):
        services.submit_move(game, owner, hand, version)
    assert fresh(game).version == version + 1
    assert PlanTurn.objects.filter(game=game).count() == 1


def test_cancelling_ends_the_plan_and_the_next_turn_email_says_so(
    django_capture_on_commit_callbacks,
):
    game = building_game()
    owner_pos = next_to_move_after(game)
    owner = seat_at(game, owner_pos)
    plans.set_plan(owner, rule_plans.ALL)
    assert plans.cancel_plan(owner)
    assert not plans.cancel_plan(owner)
    game = play_until_turn_of(game, owner_pos, django_capture_on_commit_callbacks)
    assert stop_email(owner).facts["plan_stopped"] == plans.CANCELLED
    assert not PlanTurn.objects.exists()


def test_a_plan_plays_on_during_a_vacation_and_its_stop_email_waits_for_the_end(
    django_capture_on_commit_callbacks,
):
    game = building_game()
    owner_pos = next_to_move_after(game)
    owner = seat_at(game, owner_pos)
    user = User.objects.create_user(owner.email, password="x-long-password-1")
    Seat.objects.filter(pk=owner.pk).update(user=user)
    owner.refresh_from_db()
    services.start_vacation(user, 3)
    plans.set_plan(owner, rule_plans.ALL)
    with django_capture_on_commit_callbacks(execute=True):
        hand_move(game)
    assert PlanTurn.objects.filter(game=game, seat=owner_pos).exists()  # it played
    # Stop it: cancelled, and the turn comes round again.
    plans.cancel_plan(owner)
    game = play_until_turn_of(game, owner_pos, django_capture_on_commit_callbacks)
    email = stop_email(owner)
    user.refresh_from_db()
    assert email.next_attempt_at >= user.vacation_until - timedelta(seconds=1)
    assert email.next_attempt_at > timezone.now() + timedelta(days=2)


def test_a_seat_a_bot_keeps_ends_its_plan(django_capture_on_commit_callbacks):
    game = building_game()
    Game.objects.filter(pk=game.pk).update(bot_takeover_after=1, on_timeout=Game.OnTimeout.BOT)
    game = fresh(game)
    owner = seat_at(game, game.seat_to_move)
    plan = plans.set_plan(owner, rule_plans.ALL)  # not played: its task is not run
    with django_capture_on_commit_callbacks(execute=True):
        services.record_timeout(game, owner, game.version)
    # Ended (then dropped with the bot's first move): it never plays for the bot.
    assert not Plan.objects.filter(pk=plan.pk, stopped="").exists()
    assert not PlanTurn.objects.exists()


def test_a_seat_a_bot_keeps_ends_its_plan_with_the_reason():
    game = building_game()
    owner = seat_at(game, game.seat_to_move)
    plan = plans.set_plan(owner, rule_plans.ALL)
    event = Event(
        game=game, seq=game.version + 1, type=rules.SEAT_TAKEN_BY_BOT, data={"seat": owner.position}
    )
    plans.after_commit(game, [event], [], list(game.seats.order_by("position")))
    plan.refresh_from_db()
    assert plan.stopped == plans.HANDOVER


def test_plans_never_carry_over_a_deal(django_capture_on_commit_callbacks):
    events = simulate("transamerica", 3, random.Random(0))
    second = [n for n, event in enumerate(events) if event["type"] == "round_started"][1]
    # Stop three moves before round 1 is scored.
    game = simulated_game(until=second - 4)
    state = services.load_state(game)
    owner_pos = state.seat_to_move
    owner = seat_at(game, owner_pos)
    plans.set_plan(owner, rule_plans.ALL)
    with django_capture_on_commit_callbacks(execute=True):
        plans.play_turn(fresh(game), owner, game.version)
    while services.load_state(fresh(game)).round == 1:
        with django_capture_on_commit_callbacks(execute=True):
            hand_move(game)
    game = play_until_turn_of(game, owner_pos, django_capture_on_commit_callbacks)
    assert services.load_state(game).round == 2
    assert stop_email(owner).facts["plan_stopped"] == rule_plans.ROUND_ENDED
    assert fresh(game).seat_to_move == owner_pos  # the old plan played nothing


def test_the_turn_email_offers_plans_and_says_what_the_plan_played(
    django_capture_on_commit_callbacks,
):
    game = building_game()
    owner_pos = next_to_move_after(game)
    owner = seat_at(game, owner_pos)
    plans.set_plan(owner, rule_plans.ALL)
    with django_capture_on_commit_callbacks(execute=True):
        hand_move(game)  # the plan plays the owner's turn
    plans.cancel_plan(owner)
    game = play_until_turn_of(game, owner_pos, django_capture_on_commit_callbacks)
    email = delivered(stop_email(owner))
    text = email.body_text
    assert "Your plan played 1 turn since our last email." in text
    assert "Keep going toward" in text and "/plan/0/" in text
    state = services.load_state(game)
    for city in state.hands[owner_pos]:
        assert f"/plan/{city}" not in text  # a one-tap plan link names a number


def test_the_round_scored_email_says_what_the_plan_played(django_capture_on_commit_callbacks):
    events = simulate("transamerica", 3, random.Random(0))
    second = [n for n, event in enumerate(events) if event["type"] == "round_started"][1]
    game = simulated_game(until=second - 4)
    state = services.load_state(game)
    owner = seat_at(game, state.seat_to_move)
    plans.set_plan(owner, rule_plans.ALL)
    with django_capture_on_commit_callbacks(execute=True):
        plans.play_turn(fresh(game), owner, game.version)
    while services.load_state(fresh(game)).round == 1:
        with django_capture_on_commit_callbacks(execute=True):
            hand_move(game)
    [scored] = Message.objects.filter(seat=owner, kind="round_scored")
    assert "Your plan played 1 turn since our last email." in delivered(scored).body_text


def test_a_seat_its_player_leaves_or_hands_on_ends_its_plan_and_the_newcomer_never_gets_it(
    django_capture_on_commit_callbacks,
):
    from games.services import substitutes

    game = building_game()
    owner_pos = next_to_move_after(game)
    owner = seat_at(game, owner_pos)
    plan = plans.set_plan(owner, rule_plans.ALL)
    with django_capture_on_commit_callbacks(execute=True):
        substitutes.leave(owner)
    # Gone with its player (whose links died): nobody is left to tell.
    assert not Plan.objects.filter(pk=plan.pk).exists()
    assert not seat_at(game, owner_pos).has_plan
    # A substitute takes the seat over: the plan never plays for them, nor shows to them.
    by = seat_at(game, (owner_pos + 1) % 3)
    with django_capture_on_commit_callbacks(execute=True):
        substitutes.invite_substitute(by, seat_at(game, owner_pos), "Newcomer", "new@example.com")
    Seat.objects.filter(pk=owner.pk).update(autopilot=False)
    assert plans.holding_plan(seat_at(game, owner_pos)) is None
    turns = PlanTurn.objects.filter(game=game, seat=owner_pos).count()
    game = play_until_turn_of(game, owner_pos, django_capture_on_commit_callbacks)
    assert PlanTurn.objects.filter(game=game, seat=owner_pos).count() == turns


@pytest.mark.parametrize("board", ["transamerica", "transeuropa"])
def test_a_route_builds_coloured_track_only_on_the_lines_its_player_marked(
    django_capture_on_commit_callbacks, board
):
    game = building_game(board=board, options={"exclusive_tracks": 3})
    owner = seat_at(game, game.seat_to_move)
    state = services.load_state(game)
    # Two single lines from the network, one after the other: one turn builds both.
    lines = state.board.lines
    first, second = next(
        (first, second)
        for first in rules.legal_line_ids(state, owner.position)
        for second in rules.legal_second_line_ids(state, owner.position, first, coloured=False)
        if lines[first][2] == 1 and lines[second][2] == 1
    )
    with django_capture_on_commit_callbacks(execute=True):
        plans.set_plan(owner, rule_plans.ROUTE, route=[first, second], coloured=[second])
    after = services.load_state(fresh(game))
    assert PlanTurn.objects.filter(game=game, seat=owner.position).exists()
    assert after.built[first] == rules.Track(owner.position, False)
    assert after.built[second] == rules.Track(owner.position, True)
    assert after.exclusive_left[owner.position] == state.exclusive_left[owner.position] - 1


def test_a_route_may_not_mark_more_coloured_track_than_is_left_or_in_a_game_without_it():
    game = building_game()
    owner = seat_at(game, next_to_move_after(game))
    state = services.load_state(game)
    line = rules.legal_line_ids(state, owner.position)[0]
    with pytest.raises(plans.PlanError) as refused:
        plans.set_plan(owner, rule_plans.ROUTE, route=[line], coloured=[line])
    assert refused.value.code == "no_coloured_track"
    assert not Plan.objects.filter(seat=owner).exists()
