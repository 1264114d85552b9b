"""Build plans by reply: "plan: <city>", "plan: all", "plan: stop" (German "plan: alle",
"plan: stopp"), read by the one inbound handler (notifications.inbound.receive)."""

from email import message_from_bytes, policy

import pytest

from games import rules, services
from games.models import Plan
from notifications import inbound, reply_addresses
from notifications.models import Message
from tests.conftest import delivered
from tests.factories import GameFactory, running_game_in_round_2
from tests.notifications.replies import raw_reply

pytestmark = pytest.mark.django_db

DOMAIN = "in.railmail.example.org"


@pytest.fixture(autouse=True)
def inbound_domain(settings):
    settings.RAILMAIL_INBOUND_DOMAIN = DOMAIN


def reply(seat, version: int, first_line: str, client: str = "gmail-en") -> str:
    to = reply_addresses.reply_address(seat, version)
    raw = raw_reply(sender=seat.email, to=to, first_lines=first_line, client=client)
    return inbound.receive(message_from_bytes(raw, policy=policy.default)).code


def not_to_move(game):
    state = services.load_state(game)
    return game.seats.exclude(position=state.seat_to_move).order_by("position").first()


def answers(seat) -> list[Message]:
    return list(Message.objects.filter(seat=seat, kind="reply_answer").order_by("pk"))


def test_plan_all_is_set_by_reply_whether_or_not_it_is_ones_turn():
    game = GameFactory()
    seat = not_to_move(game)
    assert reply(seat, game.version, "plan: all") == "plan-set"
    plan = Plan.objects.get(seat=seat)
    assert (plan.form, plan.stopped) == (rules.plans.ALL, "")
    [answer] = answers(seat)
    answer = delivered(answer)
    assert "Your plan is set: all your cities." in answer.body_text
    assert "not played" not in answer.subject


def test_a_plan_toward_a_city_and_its_cancelling_by_reply_in_german():
    game = GameFactory(board="transeuropa", language="de")
    seat = not_to_move(game)
    state = services.load_state(game)
    name = state.hands[seat.position][0]
    city = state.board.city_by_name[name]
    written = (city.name_de or city.name).upper()
    assert reply(seat, game.version, f"Plan: {written}", client="gmail-de") == "plan-set"
    plan = Plan.objects.get(seat=seat)
    assert (plan.form, plan.city) == (rules.plans.CITY, name)
    answer = delivered(answers(seat)[-1])
    assert f"Dein Plan steht: auf {city.name_de or city.name} zu." in answer.body_text
    assert reply(seat, game.version, "plan: stopp", client="gmail-de") == "plan-cancelled"
    plan.refresh_from_db()
    assert plan.stopped == "cancelled"
    assert reply(seat, game.version, "plan: alle") == "plan-set"


def test_a_city_not_in_ones_hand_is_answered_never_guessed():
    game = GameFactory()
    seat = not_to_move(game)
    state = services.load_state(game)
    other = next(c.name for c in state.board.cities if c.name not in state.hands[seat.position])
    assert reply(seat, game.version, f"plan: {other}") == "plan-unclear"
    assert not Plan.objects.exists()


def test_a_plan_reply_is_stale_only_once_its_round_has_ended():
    game = running_game_in_round_2()
    seat = not_to_move(game)
    round_one = game.events.get(type=rules.ROUND_STARTED, data__round=1).seq
    assert reply(seat, round_one + 3, "plan: all") == "plan-stale"
    assert not Plan.objects.exists()
    round_two = game.events.get(type=rules.ROUND_STARTED, data__round=2).seq
    # Moves since the email do not make it stale: only the round's end does.
    assert game.version > round_two
    assert reply(seat, round_two, "plan: all") == "plan-set"


def test_start_markers_are_planned_by_reply_in_order_of_preference():
    game = GameFactory()
    seat = not_to_move(game)
    board = services.load_state(game).board
    assert reply(seat, game.version, "plan: Omaha, Kansas City") == "plan-set"
    plan = Plan.objects.get(seat=seat)
    assert plan.starts == [board.city_point("Omaha"), board.city_point("Kansas City")]
    assert plan.form == rules.plans.ALL
    assert reply(seat, game.version, "plan: Omaha, Atlantis") == "plan-unclear"
