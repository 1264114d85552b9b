"""The replay page's model: frames, who may see a game's history, its record."""

import pytest

from games import rules
from games.models import Game, PlanTurn
from games.pages import replay_page
from tests.factories import GameFactory, UserFactory, running_game_in_round_2, simulated_game

pytestmark = pytest.mark.django_db


class TestMayView:
    def test_finished_games_are_public(self):
        assert replay_page.may_view(simulated_game(), None)

    def test_a_running_game_only_to_its_players(self):
        game = GameFactory()
        other = GameFactory()
        assert replay_page.may_view(game, game.seats.get(position=1))
        assert not replay_page.may_view(game, None)
        assert not replay_page.may_view(game, other.seats.get(position=1))

    def test_viewer_seat_is_the_users_seat_in_that_game(self):
        user = UserFactory()
        game = GameFactory()
        assert replay_page.viewer_seat(game, user) is None
        game.seats.filter(position=2).update(user=user)
        assert replay_page.viewer_seat(game, user).position == 2


class TestReplay:
    def test_every_frame_of_a_finished_game_is_the_state_after_that_event(self):
        game = simulated_game(seats=2)
        events = game.engine_events()
        replay = replay_page.Replay(game)
        assert replay.last_seq == len(events) == game.version
        for seq in range(1, replay.last_seq + 1):
            frame = replay.frame(seq)
            assert frame.state.version == seq
            assert frame.event == events[seq - 1]
            assert frame.description
            if frame.state.round:
                # A finished game shows everyone's cities at every moment.
                assert all(hand and len(hand) == 5 for hand in frame.hands)

    def test_the_default_frame_is_the_latest_and_navigation_stops_at_the_ends(self):
        replay = replay_page.Replay(simulated_game())
        last = replay.frame()
        assert last.seq == replay.last_seq and last.next_seq is None
        assert last.previous_seq == last.seq - 1
        first = replay.frame(1)
        assert first.previous_seq is None and first.next_seq == 2
        assert first.event["type"] == "game_created"

    @pytest.mark.parametrize("seq", [0, -1, 10_000])
    def test_a_move_outside_the_log_is_refused(self, seq):
        with pytest.raises(ValueError, match="moves 1 to"):
            replay_page.Replay(GameFactory()).frame(seq)

    def test_a_running_game_hides_other_hands_of_the_current_round_only(self):
        game = running_game_in_round_2()
        assert game.status == Game.Status.ACTIVE and game.round == 2
        state = rules.replay(game.engine_events())
        replay = replay_page.Replay(game, viewer=1)

        now = replay.frame()
        assert now.hands == [None, list(state.hands[1]), None]
        assert [s["hand"] for s in now.seats] == [None, list(state.hands[1]), None]
        # Round 1 is scored: its hands are public, in its frames and its scoring table.
        round_1 = replay.scored_rounds()[0]
        frame = replay.frame(round_1.seq)
        assert frame.state.round == 1 and all(frame.hands)
        assert [row.cities for row in round_1.rows] == frame.hands

    def test_an_onlooker_of_a_running_game_sees_no_hand_of_the_current_round(self):
        replay = replay_page.Replay(running_game_in_round_2(), viewer=None)
        assert replay.frame().hands == [None, None, None]
        hidden = {city for hand in rules.replay(replay.events).hands for city in hand}
        for seq in range(1, replay.last_seq + 1):
            frame = replay.frame(seq)
            if frame.state.round == 2:
                assert frame.hands == [None, None, None]
        round_2 = [e for e in replay.record["events"] if e.get("round") == 2]
        assert round_2[0]["hands"] == [None, None, None]
        assert hidden  # the test would prove nothing without a dealt round

    def test_scored_rounds_match_the_round_scored_events(self):
        game = simulated_game(names=["Ada", "Grace", "Alan"])
        events = game.engine_events()
        scored = [e for e in events if e["type"] == "round_scored"]
        dealt = {e["round"]: e["hands"] for e in events if e["type"] == "round_started"}
        rounds = replay_page.Replay(game).scored_rounds()
        assert [r.round for r in rounds] == [e["round"] for e in scored]
        for table, event in zip(rounds, scored, strict=True):
            assert table.seq == event["seq"]
            assert [row.name for row in table.rows] == ["Ada", "Grace", "Alan"]
            assert [row.loss for row in table.rows] == event["losses"]
            assert [row.score for row in table.rows] == event["scores"]
            assert [row.connected for row in table.rows] == [
                seat in event["connected"] for seat in range(3)
            ]
            assert [sorted(row.cities) for row in table.rows] == [
                sorted(hand) for hand in dealt[event["round"]]
            ]


def test_the_record_replays_and_hides_what_the_replay_hides():
    game = running_game_in_round_2()
    record = replay_page.record(game, viewer=0)
    hands = [e["hands"] for e in record["events"] if e["type"] == "round_started"]
    assert all(hands[0]) and hands[1][1:] == [None, None] and hands[1][0]
    finished = simulated_game()
    state = rules.replay_record(replay_page.record(finished))
    assert state.is_over and state.scores == finished.scores


@pytest.mark.parametrize("viewer", [None, 0, 1, 2])
def test_the_replay_shows_exactly_the_hands_of_the_viewers_record(viewer):
    # The replay masks hands with the engine's rule without building the record; the two
    # must agree, round by round, for every viewer.
    for game in (running_game_in_round_2(), simulated_game()):
        replay = replay_page.Replay(game, viewer)
        record = replay_page.record(game, viewer=viewer)
        dealt = {e["round"]: e["hands"] for e in record["events"] if e["type"] == "round_started"}
        assert replay.hands == dealt


def test_the_replay_and_the_record_leave_out_a_turn_taken_back_and_agree_with_the_log(client):
    """A move, a nudge while it stands, its take-back, the move played again: the replay
    steps through the record's log (no taken-back turn, no take-back, numbered again),
    frame by frame the record's replay, and ends on the board the game's log ends on."""
    from django.urls import reverse

    from games.bots import greedy_move
    from games.services import SeatSpec, consent, create_game, load_state, start_game
    from games.services import submit_move as submit

    people = [SeatSpec("Ada", "ada@example.com"), SeatSpec("Bo", "bo@example.com")]
    game = start_game(create_game("transamerica", rules.Options(take_backs=True), people, None))
    ada, bo = game.seats.order_by("position")

    def move():
        fresh = Game.objects.get(pk=game.pk)
        state = load_state(fresh)
        mover = fresh.seats.get(position=state.seat_to_move)
        return submit(fresh, mover, greedy_move(state, mover.position), fresh.version)

    first = game.seats.get(position=game.seat_to_move)
    move()
    consent.nudge(first)
    consent.take_back(first)
    move()
    move()
    consent.agree_to_end(ada)
    game = consent.agree_to_end(bo)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    log_types = [e["type"] for e in game.engine_events()]
    assert rules.TURN_TAKEN_BACK in log_types

    # Say a plan played the last move: the record marks it under its new number.
    last_move = game.events.filter(type__in=rules.MOVE_EVENTS).order_by("-seq").first()
    PlanTurn.objects.create(game=game, seq=last_move.seq, seat=last_move.data["seat"])

    replay = replay_page.Replay(game)
    record = replay_page.record(game)
    marked = [e for e in record["events"] if e.get("played_by") == "plan"]
    assert [e["seq"] for e in marked] == [last_move.seq - 2]
    kinds = [e["type"] for e in replay.events]
    assert rules.TURN_TAKEN_BACK not in kinds
    assert kinds == [e["type"] for e in record["events"]]
    assert len(kinds) == len(log_types) - 2  # the turn taken back and its take-back
    assert [e["seq"] for e in replay.events] == list(range(1, len(kinds) + 1))
    assert [e["seq"] for e in record["events"]] == list(range(1, len(kinds) + 1))
    assert kinds.count(rules.START_PLACED) == 2 and rules.NUDGED in kinds
    # Frame by frame, the replay is the record's replay; it ends on the game's own board.
    for seq in range(1, replay.last_seq + 1):
        assert replay.frame(seq).state == rules.replay(record["events"][:seq])
    last, state = replay.frame().state, load_state(game)
    assert (last.starts, last.built, last.scores, last.winners) == (
        state.starts,
        state.built,
        state.scores,
        state.winners,
    )
    assert rules.replay_record(record).winners == state.winners
    assert record["events"][-1]["type"] == rules.GAME_ENDED
    assert record["events"][-1]["reason"] == rules.ENDED_BY_AGREEMENT
    # Nothing the page lists or shows says a turn was taken back.
    assert not any("took back" in words for _seq, words in replay.moves())
    page = client.get(reverse("games:replay", args=[game.pk])).content.decode()
    assert "took back" not in page
    assert f"?move={replay.last_seq + 1}" not in page
