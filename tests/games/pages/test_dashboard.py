"""A player's dashboard."""

from datetime import timedelta

import pytest

from games.pages import dashboard
from tests.conftest import play_turn
from tests.factories import GameFactory, UserFactory, simulated_game

pytestmark = pytest.mark.django_db


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

        board = dashboard.dashboard(user)

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
        board = dashboard.dashboard(user)
        assert [e.game for e in board.waiting_for_me] == [sooner, later, no_deadline]

    def test_a_game_moves_from_waiting_to_active_when_i_have_moved(self):
        user = UserFactory()
        game = GameFactory()
        game.seats.filter(position=game.seat_to_move).update(user=user)
        assert dashboard.dashboard(user).waiting_for_me
        play_turn(game)
        board = dashboard.dashboard(user)
        assert not board.waiting_for_me
        assert [e.game for e in board.active] == [game]

    def test_players_show_scores_once_started_and_mark_mine(self):
        user = UserFactory()
        game = GameFactory(started=False)
        game.seats.filter(position=2).update(user=user)
        entry = dashboard.dashboard(user).setup[0]
        assert [p["score"] for p in entry.players] == [None, None, None]
        assert [p["is_me"] for p in entry.players] == [False, False, True]

    def test_no_games_is_an_empty_dashboard(self):
        assert not dashboard.dashboard(UserFactory())
