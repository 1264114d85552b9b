import factory

from accounts.models import User
from games.models import Game
from games.services import SeatSpec, create_game, start_game

PASSWORD = "correct horse battery"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User

    email = factory.Sequence(lambda n: f"player{n}@example.com")
    name = factory.Faker("first_name")

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        return model_class.objects.create_user(*args, password=PASSWORD, **kwargs)


class GameFactory(factory.django.DjangoModelFactory):
    """A game made the only way games are made: through games.services.

    ``GameFactory()`` is a started 3-seat TransAmerica game; ``started=False`` leaves it
    in setup, ``seats=N`` changes the table.
    """

    class Meta:
        model = Game

    board = "transamerica"
    options = factory.LazyFunction(dict)
    time_per_move = None
    created_by = None
    seats = 3
    started = True

    @classmethod
    def _create(cls, model_class, *, board, options, time_per_move, created_by, seats, started):
        players = [SeatSpec(f"Player {n}", f"seat{n}@example.com") for n in range(seats)]
        game = create_game(board, options, players, created_by, time_per_move)
        if started:
            game = start_game(game)
        return game
