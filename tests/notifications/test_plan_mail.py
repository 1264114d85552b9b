"""Every email a plan-holder gets says what the plan played since their last email
(notifications.plan_mail.played_since, said by the emails' base templates and by the
digest per game): reminders, the game-over email and the daily digest, as the your-turn
and round-scored emails do (tests/games/services/test_plans.py)."""

import random
from datetime import date

import pytest

from games import services
from games.bots import greedy_move, simulate
from games.models import Game, PlanTurn, Seat
from games.rules import plans as rule_plans
from games.services import consent, plans
from notifications import emails
from notifications.models import MailPreference, Message
from tests.conftest import delivered
from tests.factories import GameFactory, simulated_game

pytestmark = pytest.mark.django_db

ENGLISH = "Your plan played 1 turn since our last email."
GERMAN = "Dein Plan hat seit unserer letzten E-Mail 1 Zug gespielt."


def fresh(game: Game) -> Game:
    return Game.objects.get(pk=game.pk)


def hand_move(game: Game) -> Game:
    game = fresh(game)
    state = services.load_state(game)
    seat = game.seats.get(position=state.seat_to_move)
    return services.submit_move(game, seat, greedy_move(state, seat.position), game.version)


def owner_whose_plan_played(capture, **kwargs) -> tuple[Game, Seat]:
    """A building game whose seat after the one to move held a plan that played a turn."""
    game = GameFactory(**kwargs)
    for _ in range(3):
        game = hand_move(game)
    state = services.load_state(fresh(game))
    owner = fresh(game).seats.get(position=(state.seat_to_move + 1) % state.seat_count)
    plans.set_plan(owner, rule_plans.ALL)
    with capture(execute=True):
        hand_move(game)
    assert PlanTurn.objects.filter(game=game, seat=owner.position).count() == 1
    return fresh(game), Seat.objects.get(pk=owner.pk)


@pytest.mark.parametrize("language, words", [("en", ENGLISH), ("de", GERMAN)])
def test_a_reminder_says_what_the_plan_played_once(
    django_capture_on_commit_callbacks, language, words
):
    game, owner = owner_whose_plan_played(django_capture_on_commit_callbacks, language=language)
    first = delivered(emails.reminder(game, owner, 6))
    assert words in first.body_text and words in first.body_html
    # The next email has nothing new to say of the plan.
    second = delivered(emails.reminder(game, owner, 1))
    assert words not in second.body_text


def test_the_game_over_email_says_what_the_plan_played(django_capture_on_commit_callbacks):
    events = simulate("transamerica", 3, random.Random(0))
    game = simulated_game(until=len(events) - 4)
    state = services.load_state(game)
    owner = game.seats.get(position=state.seat_to_move)
    plans.set_plan(owner, rule_plans.ALL)
    with django_capture_on_commit_callbacks(execute=True):
        plans.play_turn(fresh(game), owner, game.version)
    assert PlanTurn.objects.filter(game=game, seat=owner.position).exists()
    while fresh(game).status == Game.Status.ACTIVE:
        with django_capture_on_commit_callbacks(execute=True):
            hand_move(game)
    # The last round's scoring and the game's end come one after the other: the first of
    # the two emails says it, once.
    last = Message.objects.filter(seat=owner, kind__in=["round_scored", emails.GAME_OVER])
    last = list(last.order_by("-pk")[:2])[::-1]
    assert [m.kind for m in last] == ["round_scored", emails.GAME_OVER]
    told = [delivered(m).body_text for m in last]
    assert [ENGLISH in text for text in told] == [True, False]
    # Another seat, without a plan, is told nothing of plans.
    other = game.seats.exclude(pk=owner.pk).first()
    [theirs] = Message.objects.filter(seat=other, kind=emails.GAME_OVER)
    assert "plan" not in delivered(theirs).body_text.lower()


@pytest.mark.parametrize("language, words", [("en", ENGLISH), ("de", GERMAN)])
def test_the_email_of_a_game_ended_by_agreement_says_what_the_plan_played(
    django_capture_on_commit_callbacks, language, words
):
    game, owner = owner_whose_plan_played(django_capture_on_commit_callbacks, language=language)
    with django_capture_on_commit_callbacks(execute=True):
        for seat in fresh(game).seats.all():
            consent.agree_to_end(seat)
    assert fresh(game).status != Game.Status.ACTIVE
    [over] = Message.objects.filter(seat=owner, kind=emails.GAME_OVER)
    sent = delivered(over)
    assert words in sent.body_text and words in sent.body_html


def test_the_daily_digest_says_what_the_plan_played_per_game(django_capture_on_commit_callbacks):
    words = ENGLISH
    game, owner = owner_whose_plan_played(django_capture_on_commit_callbacks)
    MailPreference.objects.create(address=owner.email.lower(), digest=True)
    plans.cancel_plan(owner)
    while fresh(game).seat_to_move != owner.position:
        with django_capture_on_commit_callbacks(execute=True):
            hand_move(game)
    Message.objects.filter(seat=owner).delete()  # no email since the plan played
    digest = emails.digest(owner.email, date.today())
    sent = delivered(digest)
    assert words in sent.body_text and words in sent.body_html
    # The next digest (the day after) has nothing new to say of it.
    Message.objects.filter(pk=sent.pk).update(event="before")
    later = delivered(emails.digest(owner.email, date.today()))
    assert words not in later.body_text
