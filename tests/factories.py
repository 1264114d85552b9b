import random
from datetime import timedelta

import factory

from accounts.models import User
from games import services
from games.bots import simulate
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
    in setup, ``seats=N`` changes the table, ``language="de"`` its language, and
    ``bots="greedy"`` (a name from ``games.bots.BOTS``) seats that bot everywhere instead
    of people; they start to move once the start commits (games.services.autoplay), so not in a
    test that never commits.
    """

    class Meta:
        model = Game

    board = "transamerica"
    options = factory.LazyFunction(dict)
    time_per_move = None
    created_by = None
    seats = 3
    bots = None
    started = True
    language = None

    @classmethod
    def _create(
        cls,
        model_class,
        *,
        board,
        options,
        time_per_move,
        created_by,
        seats,
        bots,
        started,
        language,
    ):
        if bots:
            players = [SeatSpec(f"Bot {n}", is_bot=True, bot_level=bots) for n in range(seats)]
        else:
            players = [SeatSpec(f"Player {n}", f"seat{n}@example.com") for n in range(seats)]
        game = create_game(board, options, players, created_by, time_per_move)
        if language:
            Game.objects.filter(pk=game.pk).update(language=language)
            game.refresh_from_db()
        if started:
            game = start_game(game)
        return game


def simulated_game(
    seats: int = 3,
    *,
    board: str = "transamerica",
    seed: int = 0,
    until: int | None = None,
    names: list[str] | None = None,
    **create,
) -> Game:
    """A game whose moves are a bot game from ``games.bots.simulate`` (dealt from ``seed``):
    finished, or stopped after event ``until``. Much quicker than playing a whole game
    turn by turn: the moves are recorded in one append through the service's write
    path, which checks them all with the engine and updates the projection."""
    events = simulate(board, seats, random.Random(seed))[:until]
    names = names or [f"Player {n}" for n in range(seats)]
    players = [SeatSpec(name, f"seat{n}@example.com") for n, name in enumerate(names)]
    game = create_game(board, None, players, **create)
    return services.append_events(game, events[1:])


def second_round_events(seats: int = 3, seed: int = 0, moves: int = 4) -> int:
    """The length of the log that stops ``moves`` events into round 2 of the seeded game."""
    events = simulate("transamerica", seats, random.Random(seed))
    starts = [n for n, event in enumerate(events) if event["type"] == "round_started"]
    return starts[1] + 1 + moves


def running_game_in_round_2(**kwargs) -> Game:
    """A running game a few moves into round 2 (round 1's hands are public by then)."""
    return simulated_game(until=second_round_events(), **kwargs)


def timed_game(**fields) -> Game:
    """A started game with two days per move (and ``fields`` set on its row)."""
    game = GameFactory(time_per_move=timedelta(days=2))
    if fields:
        Game.objects.filter(pk=game.pk).update(**fields)
        game.refresh_from_db()
    return game


class MessageFactory(factory.django.DjangoModelFactory):
    """An outbox row: a pending sign-in email (the simplest kind to build), due now, and
    not queued to any worker (a test hands it to delivery itself)."""

    class Meta:
        model = "notifications.Message"

    kind = "login_link"
    to = factory.Sequence(lambda n: f"reader{n}@example.org")
    event = factory.Sequence(lambda n: f"request-{n}")
    facts = factory.Sequence(
        lambda n: {"url": f"https://railmail.example.org/l/{n}/", "language": "en"}
    )

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        # Inserted without post_save, whose receiver would queue its delivery.
        return model_class.objects.bulk_create([model_class(*args, **kwargs)])[0]
