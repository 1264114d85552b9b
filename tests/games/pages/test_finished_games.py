"""The public list of finished games."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games import rules
from games.models import Game
from games.pages import finished_games
from tests.factories import GameFactory, simulated_game

pytestmark = pytest.mark.django_db


class TestFinishedGames:
    def test_lists_only_finished_games_the_latest_first(self):
        older = simulated_game(seed=1)
        newer = simulated_game(seed=2)
        Game.objects.filter(pk=older.pk).update(finished_at=timezone.now() - timedelta(days=1))
        GameFactory()  # running
        GameFactory(started=False)  # setup
        assert list(finished_games.finished_games()) == [newer, older]

    def test_filters_by_any_part_of_a_players_name_in_any_case(self):
        ada = simulated_game(names=["Ada Lovelace", "Grace", "Alan"])
        simulated_game(names=["Edsger", "Barbara", "Donald"], seed=3)
        assert list(finished_games.finished_games("lovelace")) == [ada]
        assert list(finished_games.finished_games("  ADA ")) == [ada]
        assert list(finished_games.finished_games("nobody")) == []

    def test_a_game_with_two_matching_players_is_listed_once(self):
        game = simulated_game(names=["Ann", "Anna", "Bob"])
        assert list(finished_games.finished_games("ann")) == [game]

    def test_summary_names_the_winners_with_the_best_score(self):
        game = simulated_game(names=["Ada", "Grace", "Alan"])
        state = rules.replay(game.engine_events())
        summary = finished_games.summarize(finished_games.finished_games().get(pk=game.pk))
        assert summary.board_title == "TransAmerica"
        assert [p["score"] for p in summary.players] == state.scores
        assert summary.winners == [["Ada", "Grace", "Alan"][seat] for seat in state.winners]
        assert [p["won"] for p in summary.players] == [seat in state.winners for seat in range(3)]

    def test_a_running_game_has_no_winners(self):
        assert finished_games.winners(GameFactory()) == []
