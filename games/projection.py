"""The Game row's projection columns, computed from the engine's state.

Used by the write path after every append and by ``manage.py rebuild_projections``,
so that the two can never disagree about what a game's columns should hold.
"""

from typing import Any

from games.models import Event, Game


def project(game: Game, state: Any, last_event: Event) -> dict[str, Any]:
    """Return the projection columns for ``game`` once ``state`` is reached by ``last_event``.

    ``state`` is the rules engine's GameState after replaying the log up to and including
    ``last_event``. The deadline runs from the last event: a player has ``time_per_move``
    from the moment it became their turn.
    """
    if state.is_over:
        status = Game.Status.FINISHED
    elif state.round == 0:
        status = Game.Status.SETUP
    else:
        status = Game.Status.ACTIVE
    seat_to_move = state.seat_to_move
    deadline = None
    if seat_to_move is not None and game.time_per_move is not None:
        deadline = _deadline(game, seat_to_move, last_event)
    return {
        "status": status.value,
        "round": state.round,
        "seat_to_move": seat_to_move,
        "deadline": deadline,
        "version": last_event.seq,
        "scores": list(state.scores),
        "finished_at": last_event.created_at if state.is_over else None,
    }


def _deadline(game: Game, seat_to_move: int, last_event: Event):
    """When the player to move must have moved, or None if their clock is stopped.

    - A seat a bot keeps after too many timeouts is due at once: the next deadline scan
      has the bot play it.
    - After a timeout in a game that waits, the clock stays stopped until they move.
    """
    if game.pk and game.seats.filter(position=seat_to_move, autopilot=True).exists():
        return last_event.created_at
    if last_event.type == "turn_timed_out" and game.on_timeout == Game.OnTimeout.WAIT:
        return None
    return last_event.created_at + game.time_per_move


def differences(game: Game, projection: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """Return {field: (stored, expected)} for every column where ``game`` differs."""
    return {
        name: (getattr(game, name), value)
        for name, value in projection.items()
        if getattr(game, name) != value
    }
