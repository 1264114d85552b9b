import random
from datetime import timedelta

import pytest
from django.utils import timezone

from games import history, rules
from games.bots import simulate
from games.models import Game
from tests.conftest import play_turn
from tests.factories import GameFactory, UserFactory, simulated_game

pytestmark = pytest.mark.django_db


def second_round_events(seats: int = 3, seed: int = 0, moves: int = 4) -> int:
    """The length of the log that stops ``moves`` events into round 2 of the seeded game."""
    events = simulate("transamerica", seats, random.Random(seed))
    starts = [n for n, event in enumerate(events) if event["type"] == "round_started"]
    return starts[1] + 1 + moves


def running_game_in_round_2(**kwargs) -> Game:
    return simulated_game(until=second_round_events(), **kwargs)


class TestFinishedGames:
    def test_lists_only_finished_games_the_latest_first(self):
        older = simulated_game(seed=1)
        newer = simulated_game(seed=2)
        Game.objects.filter(pk=older.pk).update(finished_at=timezone.now() - timedelta(days=1))
        GameFactory()  # running
        GameFactory(started=False)  # setup
        assert list(history.finished_games()) == [newer, older]

    def test_filters_by_any_part_of_a_players_name_in_any_case(self):
        ada = simulated_game(names=["Ada Lovelace", "Grace", "Alan"])
        simulated_game(names=["Edsger", "Barbara", "Donald"], seed=3)
        assert list(history.finished_games("lovelace")) == [ada]
        assert list(history.finished_games("  ADA ")) == [ada]
        assert list(history.finished_games("nobody")) == []

    def test_a_game_with_two_matching_players_is_listed_once(self):
        game = simulated_game(names=["Ann", "Anna", "Bob"])
        assert list(history.finished_games("ann")) == [game]

    def test_summary_names_the_winners_with_the_best_score(self):
        game = simulated_game(names=["Ada", "Grace", "Alan"])
        state = rules.replay(game.engine_events())
        summary = history.summarize(history.finished_games().get(pk=game.pk))
        assert summary.board_title == "TransAmerica"
        assert [p["score"] for p in summary.players] == state.scores
        assert summary.winners == [["Ada", "Grace", "Alan"][seat] for seat in state.winners]
        assert [p["won"] for p in summary.players] == [seat in state.winners for seat in range(3)]

    def test_a_running_game_has_no_winners(self):
        assert history.winners(GameFactory()) == []


class TestDashboard:
    def test_games_waiting_for_me_come_first_then_active_setup_finished(self):
        user = UserFactory()
        waiting = GameFactory()
        other_turn = GameFactory()
        setup = GameFactory(started=False)
        finished = simulated_game()
        GameFactory()  # someone else's game
        waiting.seats.filter(position=waiting.seat_to_move).update(user=user)
        not_to_move = (other_turn.seat_to_move + 1) % 3
        other_turn.seats.filter(position=not_to_move).update(user=user)
        setup.seats.filter(position=0).update(user=user)
        finished.seats.filter(position=1).update(user=user)

        board = history.dashboard(user)

        assert [e.game for e in board.waiting_for_me] == [waiting]
        assert [e.game for e in board.active] == [other_turn]
        assert [e.game for e in board.setup] == [setup]
        assert [e.game for e in board.finished] == [finished]
        assert board.waiting_for_me[0].my_turn
        assert board.active[0].seat_to_move.position == other_turn.seat_to_move
        assert board.finished[0].seat.position == 1

    def test_waiting_games_with_the_nearest_deadline_first(self):
        user = UserFactory()
        later = GameFactory(time_per_move=timedelta(days=3))
        sooner = GameFactory(time_per_move=timedelta(days=1))
        no_deadline = GameFactory()
        for game in (later, sooner, no_deadline):
            game.seats.filter(position=game.seat_to_move).update(user=user)
        board = history.dashboard(user)
        assert [e.game for e in board.waiting_for_me] == [sooner, later, no_deadline]

    def test_a_game_moves_from_waiting_to_active_when_i_have_moved(self):
        user = UserFactory()
        game = GameFactory()
        game.seats.filter(position=game.seat_to_move).update(user=user)
        assert history.dashboard(user).waiting_for_me
        play_turn(game)
        board = history.dashboard(user)
        assert not board.waiting_for_me
        assert [e.game for e in board.active] == [game]

    def test_players_show_scores_once_started_and_mark_mine(self):
        user = UserFactory()
        game = GameFactory(started=False)
        game.seats.filter(position=2).update(user=user)
        entry = history.dashboard(user).setup[0]
        assert [p["score"] for p in entry.players] == [None, None, None]
        assert [p["is_me"] for p in entry.players] == [False, False, True]

    def test_no_games_is_an_empty_dashboard(self):
        assert not history.dashboard(UserFactory())


class TestMayView:
    def test_finished_games_are_public(self):
        assert history.may_view(simulated_game(), None)

    def test_a_running_game_only_to_its_players(self):
        game = GameFactory()
        other = GameFactory()
        assert history.may_view(game, game.seats.get(position=1))
        assert not history.may_view(game, None)
        assert not history.may_view(game, other.seats.get(position=1))

    def test_viewer_seat_is_the_users_seat_in_that_game(self):
        user = UserFactory()
        game = GameFactory()
        assert history.viewer_seat(game, user) is None
        game.seats.filter(position=2).update(user=user)
        assert history.viewer_seat(game, user).position == 2


class TestReplay:
    def test_every_frame_of_a_finished_game_is_the_state_after_that_event(self):
        game = simulated_game(seats=2)
        events = game.engine_events()
        replay = history.Replay(game)
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
        replay = history.Replay(simulated_game())
        last = replay.frame()
        assert last.seq == replay.last_seq and last.next_seq is None
        assert last.previous_seq == last.seq - 1
        first = replay.frame(1)
        assert first.previous_seq is None and first.next_seq == 2
        assert first.event["type"] == "game_created"

    @pytest.mark.parametrize("seq", [0, -1, 10_000])
    def test_a_move_outside_the_log_is_refused(self, seq):
        with pytest.raises(ValueError, match="moves 1 to"):
            history.Replay(GameFactory()).frame(seq)

    def test_a_running_game_hides_other_hands_of_the_current_round_only(self):
        game = running_game_in_round_2()
        assert game.status == Game.Status.ACTIVE and game.round == 2
        state = rules.replay(game.engine_events())
        replay = history.Replay(game, viewer=1)

        now = replay.frame()
        assert now.hands == [None, list(state.hands[1]), None]
        assert [s["hand"] for s in now.seats] == [None, list(state.hands[1]), None]
        # Round 1 is scored: its hands are public, in its frames and its scoring table.
        round_1 = replay.scored_rounds()[0]
        frame = replay.frame(round_1.seq)
        assert frame.state.round == 1 and all(frame.hands)
        assert [row.cities for row in round_1.rows] == frame.hands

    def test_an_onlooker_of_a_running_game_sees_no_hand_of_the_current_round(self):
        replay = history.Replay(running_game_in_round_2(), viewer=None)
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
        rounds = history.Replay(game).scored_rounds()
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


class TestDescribe:
    def describe(self, event, names=("Ada", "Grace")):
        state = rules.replay([rules.game_created("transamerica", 2)])
        return history.describe(event, state, list(names))

    def test_moves_are_told_in_words(self):
        assert self.describe({"type": "turn_passed", "seat": 1}) == "Grace cannot build and passes."
        built = {"type": "track_built", "seat": 0, "lines": [[[0, 0], [1, 0]], [[1, 0], [2, 0]]]}
        assert self.describe(built) == "Ada builds 2 tracks."
        built["exclusive"] = [1]
        assert self.describe(built) == "Ada builds 2 tracks, 1 of them coloured."

    def test_a_start_marker_in_a_city_names_it(self):
        board = rules.get_board("transamerica")
        city = board.cities[0]
        event = {"type": "start_placed", "seat": 0, "point": list(city.point)}
        assert self.describe(event) == f"Ada places their start marker in {city.name}."

    def test_events_the_engine_passes_over_are_still_shown(self):
        assert self.describe({"type": "turn_timed_out", "seat": 1}) == "Grace: Turn timed out."

    def test_the_end_names_the_winners(self):
        event = {"type": "game_ended", "scores": [3, 3], "winners": [0, 1]}
        assert self.describe(event) == "The game is over: Ada and Grace share the win."


def test_the_record_replays_and_hides_what_the_replay_hides():
    game = running_game_in_round_2()
    record = history.record(game, viewer=0)
    hands = [e["hands"] for e in record["events"] if e["type"] == "round_started"]
    assert all(hands[0]) and hands[1][1:] == [None, None] and hands[1][0]
    finished = simulated_game()
    state = rules.replay_record(history.record(finished))
    assert state.is_over and state.scores == finished.scores
