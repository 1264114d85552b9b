"""Consent at the table through the one write path (games.services.consent): each action is
an event in the log, and the replay, the projection and the record agree with it."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games import rules
from games.bots import greedy_move
from games.derived import snapshots
from games.derived.projection import differences, project
from games.models import Game, PlanTurn, Seat
from games.services import (
    GameMovedOn,
    SeatSpec,
    autoplay,
    clock,
    consent,
    create_game,
    load_state,
    plans,
    start_game,
    submit_move,
)
from notifications import emails
from notifications.models import Message

pytestmark = pytest.mark.django_db

PEOPLE = [SeatSpec("Ada", "ada@example.com"), SeatSpec("Bo", "bo@example.com")]
TAKE_BACKS = rules.Options(take_backs=True)


def table(options=TAKE_BACKS, seats=PEOPLE, time_per_move=timedelta(days=2)) -> Game:
    return start_game(create_game("transamerica", options, list(seats), None, time_per_move))


def seat(game: Game, position: int) -> Seat:
    return Seat.objects.get(game=game, position=position)


def move(game: Game) -> Game:
    """The player to move plays the greedy bot's move, as a person."""
    game = Game.objects.get(pk=game.pk)
    state = load_state(game)
    mover = seat(game, state.seat_to_move)
    return submit_move(game, mover, greedy_move(state, mover.position), game.version)


def agrees_with_its_log(game: Game) -> None:
    """The projection is what a rebuild from the log gives, and the snapshot a replay."""
    game = Game.objects.get(pk=game.pk)
    after = snapshots.EMPTY.then(game.engine_events())
    state = after.state
    assert state == load_state(game)
    last = game.events.order_by("-seq").first()
    seats = list(game.seats.order_by("position"))
    assert (
        differences(
            game,
            project(game, state, last, seats, clock=after.clock, unwritten=()),
        )
        == {}
    )


def test_a_take_back_undoes_the_last_turn_and_the_player_moves_again():
    game = table()
    before = load_state(game)
    first = before.seat_to_move
    game = move(game)
    game = consent.take_back(seat(game, first))
    game.refresh_from_db()
    assert game.seat_to_move == first
    assert game.events.order_by("-seq").first().type == rules.TURN_TAKEN_BACK
    state = load_state(game)
    assert state.starts == before.starts and state.turn == before.turn
    agrees_with_its_log(game)
    # The record leaves the move and its take-back out.
    record = rules.make_record(game.engine_events(), game.seat_names(), viewer=first)
    assert [e["type"] for e in record["events"]] == ["game_created", "round_started"]


def test_a_take_back_is_refused_where_the_game_does_not_allow_it():
    game = table(options=rules.Options())
    first = game.seat_to_move
    game = move(game)
    with pytest.raises(consent.Refused, match="does not allow taking back"):
        consent.take_back(seat(game, first))
    assert not game.events.filter(type=rules.TURN_TAKEN_BACK).exists()


def test_a_take_back_is_refused_once_the_next_player_acted():
    game = table()
    first = game.seat_to_move
    game = move(game)
    game = move(game)
    with pytest.raises(consent.Refused, match="until the next player acts"):
        consent.take_back(seat(game, first))


def test_a_take_back_and_the_next_players_move_on_the_same_version_one_wins():
    """The next player saw the board before the take-back; their move finds it moved on."""
    game = table()
    first = game.seat_to_move
    game = move(game)
    seen = Game.objects.get(pk=game.pk)
    state = load_state(seen)
    nxt = seat(seen, state.seat_to_move)
    consent.take_back(seat(game, first))
    with pytest.raises(GameMovedOn):
        submit_move(seen, nxt, greedy_move(state, nxt.position), seen.version)
    # And the other way round: once the next player moved, the take-back is refused.
    game = move(Game.objects.get(pk=game.pk))
    game = move(game)
    with pytest.raises(consent.Refused):
        consent.take_back(seat(game, first))
    assert game.events.filter(type=rules.TURN_TAKEN_BACK).count() == 1


def test_a_bots_turn_after_a_persons_move_waits_two_minutes_for_a_take_back():
    game = table(seats=[PEOPLE[0], SeatSpec("Bot", is_bot=True, bot_level="greedy")])
    assert game.seat_to_move == 0
    game = move(game)
    game.refresh_from_db()
    last = game.events.order_by("-seq").first()
    assert game.deadline == last.created_at + timedelta(minutes=2)
    played, _game = autoplay.play_bot_turns(game.pk, game.version, limit=5)
    assert played == 0  # not yet: the person may take the move back
    assert clock.apply_deadline(game.pk, timezone.now()) == "skipped"
    assert clock.apply_deadline(game.pk, timezone.now() + timedelta(minutes=3)) == "bot moves"
    assert Game.objects.get(pk=game.pk).version == game.version + 1


def test_without_take_backs_a_bots_turn_is_due_at_once():
    game = table(
        options=rules.Options(), seats=[PEOPLE[0], SeatSpec("Bot", is_bot=True, bot_level="greedy")]
    )
    game = move(game)
    game.refresh_from_db()
    assert game.deadline == game.events.order_by("-seq").first().created_at


def planned_table(options, capture) -> tuple[Game, Seat]:
    """A timed game past its start markers, where the seat not to move holds a plan (all
    its cities) and the other has just built by hand: the plan's turn is next."""
    game = move(move(table(options=options)))
    planner = Game.objects.get(pk=game.pk).seats.exclude(position=game.seat_to_move).get()
    plans.set_plan(planner, rules.plans.ALL)
    with capture(execute=True):
        game = move(game)
    return Game.objects.get(pk=game.pk), planner


def test_a_plans_turn_after_a_persons_move_waits_two_minutes_for_a_take_back(
    django_capture_on_commit_callbacks,
):
    game, planner = planned_table(TAKE_BACKS, django_capture_on_commit_callbacks)
    assert game.seat_to_move == planner.position  # not played yet
    assert game.deadline > timezone.now() + timedelta(days=1)  # the planner's own deadline
    played, _game = autoplay.play_bot_turns(game.pk, game.version, limit=1)
    assert played == 0  # the person may still take their move back
    later = timezone.now() + timedelta(minutes=2, seconds=1)
    played, after = autoplay.play_bot_turns(game.pk, game.version, limit=1, now=later)
    assert played == 1 and PlanTurn.objects.filter(game=game, seq=after.version).exists()


def test_in_a_timed_game_without_take_backs_a_plans_turn_plays_at_once(
    django_capture_on_commit_callbacks,
):
    game, planner = planned_table(rules.Options(), django_capture_on_commit_callbacks)
    assert game.seat_to_move != planner.position
    assert PlanTurn.objects.filter(game=game, seat=planner.position).exists()


def test_a_plans_turn_whose_task_was_lost_plays_at_its_seats_deadline_not_a_timeout(
    django_capture_on_commit_callbacks,
):
    game, planner = planned_table(TAKE_BACKS, django_capture_on_commit_callbacks)
    assert clock.apply_deadline(game.pk, game.deadline + timedelta(seconds=1)) == "plan moves"
    assert not game.events.filter(type=rules.TURN_TIMED_OUT).exists()


def test_more_time_gives_the_player_to_move_24_hours_once_per_turn():
    game = table()
    to_move = game.seat_to_move
    other = seat(game, 1 - to_move)
    deadline = Game.objects.get(pk=game.pk).deadline
    game = consent.give_time(other)
    game.refresh_from_db()
    assert game.deadline == deadline + timedelta(hours=24)
    given = game.events.order_by("-seq").first()
    assert given.type == rules.TIME_GIVEN and given.data == {
        "seat": other.position,
        "to": to_move,
        "hours": 24,
    }
    agrees_with_its_log(game)
    with pytest.raises(consent.Refused, match="already given more time this turn"):
        consent.give_time(other)
    with pytest.raises(consent.Refused, match="your own turn"):
        consent.give_time(seat(game, to_move))
    # The next turn has its own time, and its own "more time".
    game = move(game)
    game.refresh_from_db()
    assert game.deadline == game.events.order_by("-seq").first().created_at + timedelta(days=2)
    consent.give_time(seat(game, 1 - game.seat_to_move))


def test_more_time_needs_a_game_with_a_time_limit():
    game = table(time_per_move=None)
    with pytest.raises(consent.Refused, match="no time limit"):
        consent.give_time(seat(game, 1 - game.seat_to_move))


def test_the_game_ends_early_when_every_person_agrees():
    seats = [*PEOPLE, SeatSpec("Bot", is_bot=True, bot_level="greedy")]
    game = table(seats=seats)
    for _ in range(4):
        game = move(game) if load_state(game).seat_to_move != 2 else _bot(game)
    scores = list(load_state(game).scores)
    game = consent.agree_to_end(seat(game, 0))
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE
    with pytest.raises(consent.Refused, match="already agreed"):
        consent.agree_to_end(seat(game, 0))
    game = consent.agree_to_end(seat(game, 1))  # the bot is not asked
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    ended = game.events.order_by("-seq").first()
    assert ended.type == rules.GAME_ENDED
    assert ended.data == {"reason": "agreed", "scores": scores, "winners": [0, 1, 2]}
    agrees_with_its_log(game)
    record = rules.make_record(game.engine_events(), game.seat_names())
    assert record["events"][-1]["reason"] == "agreed"
    assert rules.replay_record(record).winners == [0, 1, 2]
    # Everyone hears how it ended.
    over = Message.objects.filter(game=game, kind=emails.GAME_OVER)
    assert over.count() == 2 and all(m.facts["reason"] == "agreed" for m in over)
    with pytest.raises(consent.Refused, match="not running"):
        consent.agree_to_end(seat(game, 0))


def _bot(game: Game) -> Game:
    bot = seat(game, game.seat_to_move)
    return autoplay.play_turn(game, bot, Game.objects.get(pk=game.pk).version)


def test_a_nudge_reminds_the_player_to_move_at_most_once_a_day_per_game():
    game = table()
    to_move = seat(game, game.seat_to_move)
    other = seat(game, 1 - to_move.position)
    game = consent.nudge(other)
    nudged = game.events.order_by("-seq").first()
    assert nudged.type == rules.NUDGED
    [row] = Message.objects.filter(game=game, kind=emails.REMINDER)
    assert row.to == to_move.email and row.facts["nudged_by"] == other.position
    agrees_with_its_log(game)
    with pytest.raises(consent.Refused, match="already nudged"):
        consent.nudge(other)
    with pytest.raises(consent.Refused, match="your own turn"):
        consent.nudge(to_move)
    consent.nudge(other, now=timezone.now() + timedelta(days=1, minutes=1))
    assert Message.objects.filter(game=game, kind=emails.REMINDER).count() == 2


def test_a_nudge_or_more_time_for_a_bot_is_refused():
    game = table(seats=[PEOPLE[0], SeatSpec("Bot", is_bot=True, bot_level="greedy")])
    game = move(game)
    with pytest.raises(consent.Refused, match="A bot is to move"):
        consent.nudge(seat(game, 0))
    with pytest.raises(consent.Refused, match="A bot plays this seat"):
        consent.nudge(seat(game, 1))


def test_the_move_log_words_each_consent_event():
    from games.words import narration

    state = load_state(table())
    names = ["Ada", "Bo"]
    for kind in (rules.TURN_TAKEN_BACK, rules.TIME_GIVEN, rules.END_AGREED, rules.NUDGED):
        said = narration.describe({"type": kind, "seat": 0}, state, names)
        assert said.startswith("Ada ") and "Something happened" not in said
    ended = {"type": rules.GAME_ENDED, "reason": "agreed", "winners": [0, 1]}
    assert "agreed to end the game" in narration.describe(ended, state, names)
