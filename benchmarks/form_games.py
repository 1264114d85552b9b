"""Games as players make them, for the benchmarks: through the new-game form and the one
write path (games.services), so every column is what the project itself writes.

A game is set up from the new-game form's own defaults (reminders, a bot on timeout, the
default zone and language, mail on), with a clock of a day a move (``timed``) or none:
its creator plays seat 1 from an account, the others are invited by email and follow
their invitation (``accept_seat``), which deals the first round. Moves are then played
through ``submit_move`` with a greedy bot's choice, as a player's POST plays them.

Runs inside a process with the benchmark's Django settings.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import timedelta

DAY = "24"  # hours: the new-game form's "1 day" per move


def form_settings(board: str, timed: bool, title: str = ""):
    """The settings the new-game form gives for ``board`` with its initial values, and a
    day a move or no clock."""
    from games.forms import NewGameForm

    form = NewGameForm()
    data = {}
    for name, field in form.fields.items():
        initial = form.get_initial_for_field(field, name)
        if isinstance(initial, bool):
            if initial:
                data[name] = "on"
        elif isinstance(initial, list | tuple):
            data[name] = [str(value) for value in initial]
        elif initial is not None:
            data[name] = str(initial)
    data |= {"board": board, "title": title, "time_per_move": DAY if timed else ""}
    bound = NewGameForm(data)
    if not bound.is_valid():
        raise RuntimeError(f"the new-game form refused its own defaults: {bound.errors}")
    settings = bound.settings()
    if timed and settings.time_per_move != timedelta(days=1):
        raise RuntimeError(f"not a day a move: {settings.time_per_move}")
    return settings


def creator(tag: str):
    """An account that creates games (the form needs one), made with the project's
    defaults (mail on, each turn's email)."""
    from accounts.models import User

    user, _ = User.objects.get_or_create(
        email=f"{tag}@bench.test", defaults={"name": f"Creator {tag}"}
    )
    return user


def new_game(
    board: str, players: int, timed: bool, tag: str, title: str = "", bots: dict | None = None
):
    """A started game: its creator at seat 1 (an account), ``players - 1`` invited by
    email who accept their invitation, the last acceptance dealing the first round.
    ``bots``: positions given to a bot instead, with its level."""
    from games import services
    from games.models import Seat

    bots = bots or {}
    user = creator(tag)
    specs = [services.SeatSpec(user.get_short_name() or "Creator", user.email, user=user)]
    specs += [
        services.SeatSpec(f"Bot {n}", is_bot=True, bot_level=bots[n])
        if n in bots
        else services.SeatSpec(f"Player {n}", f"{tag}.p{n}@bench.test", joined=False)
        for n in range(1, players)
    ]
    game = services.open_game(form_settings(board, timed, title), specs, created_by=user)
    for seat in Seat.objects.filter(game=game, joined_at__isnull=True).order_by("position"):
        game = services.accept_seat(seat)
    return game


def play(game, moves: int, rng: random.Random | None = None) -> Iterator:
    """Play up to ``moves`` moves through the write path, each the greedy bot's choice
    for the seat to move; yield the game after each. Stops when the game is over."""
    from games import bots, services

    for _ in range(moves):
        state = services.load_state(game)
        if state.seat_to_move is None:
            return
        seat = game.seats.get(position=state.seat_to_move)
        game = services.submit_move(
            game, seat, bots.greedy_move(state, seat.position), game.version
        )
        yield game


def played(game, moves: int):
    """The game after up to ``moves`` greedy moves through the write path."""
    last = game
    for last in play(game, moves):  # noqa: B007 (the last one is the answer)
        pass
    return last
