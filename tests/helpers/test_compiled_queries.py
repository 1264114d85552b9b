"""A query built once and run with new values gives what its queryset gives."""

from datetime import timedelta

import pytest
from django.db.models import Q

from games.models import Event, Game, Seat
from helpers.compiled_queries import CompiledQuery
from tests.factories import GameFactory, simulated_game

pytestmark = pytest.mark.django_db


def test_rows_are_the_querysets_for_each_value_converted_alike():
    games = [simulated_game(seed=0, until=30), GameFactory(time_per_move=timedelta(days=2))]
    columns = ("id", "board", "options", "created_at", "time_per_move", "scores", "deadline")
    query = CompiledQuery(lambda game: Game.objects.filter(pk=game).values_list(*columns))
    for game in games:
        expected = list(Game.objects.filter(pk=game.pk).values_list(*columns))
        assert query.rows(game=game.pk) == expected
        # Converted as the ORM converts: JSON to lists, durations and aware datetimes.
        assert isinstance(query.rows(game=game.pk)[0][5], list)


def test_a_parameter_used_twice_and_several_parameters():
    game = simulated_game(seed=1, until=40)

    def build(game, low, high):
        return (
            Event.objects.filter(game_id=game, seq__gte=low)
            .filter(Q(seq__lte=high) | Q(game_id=game, seq=low))
            .order_by("seq")
            .values_list("seq", "type", "data")
        )

    query = CompiledQuery(build)
    for low, high in ((1, 5), (10, 12), (38, 60), (7, 3)):
        expected = list(build(game.pk, low, high))
        assert query.rows(game=game.pk, low=low, high=high) == expected
    assert query.rows(game=game.pk + 1000, low=1, high=5) == []


def test_only_integers_are_taken():
    query = CompiledQuery(lambda game: Seat.objects.filter(game_id=game).values_list("name"))
    for value in ("1", 1.0, True, None):
        with pytest.raises(TypeError):
            query.rows(game=value)


def test_a_query_whose_sql_depends_on_the_value_is_refused():
    query = CompiledQuery(
        lambda count: Seat.objects.filter(position__in=range(count % 3 + 1)).values_list("id")
    )
    with pytest.raises(ValueError, match="depends on its parameters' values"):
        query.rows(count=1)


def test_a_parameter_the_query_does_not_use_is_refused():
    query = CompiledQuery(lambda game, seat: Seat.objects.filter(game_id=game).values_list("id"))
    with pytest.raises(ValueError, match=r"does not use \['seat'\]"):
        query.rows(game=1, seat=2)
