"""What one seat may see of a game. Hands stay secret until their round is scored."""

from __future__ import annotations

from .network import cities_joined
from .scoring import missing_cost
from .state import AWAITING_DEAL, OVER, GameState


def hands_visible_to(state: GameState, viewer: int | None) -> list[list[str] | None]:
    """Every seat's cities of the current (or last) round as ``viewer`` may see them."""
    revealed = state.phase in (AWAITING_DEAL, OVER)  # the last round has been scored
    return [
        list(hand) if revealed or seat == viewer else None for seat, hand in enumerate(state.hands)
    ]


def seat_view(state: GameState, viewer: int | None) -> dict:
    """A JSON-ready summary of the game for ``viewer`` (a seat, or None for onlookers)."""
    board = state.board
    view = {
        "board": board.name,
        "round": state.round,
        "phase": state.phase,
        "seat_to_move": state.seat_to_move,
        "scores": list(state.scores),
        "game_ends_at_score": state.game_ends_at_score,
        "supply_left": state.supply_left,
        "exclusive_left": list(state.exclusive_left),
        "starts": [None if p is None else list(board.points[p]) for p in state.starts],
        "tracks": [
            {
                "line": [list(p) for p in board.line_points(line)],
                "seat": track.seat,
                "exclusive": track.exclusive,
            }
            for line, track in state.built.items()
        ],
        "hands": hands_visible_to(state, viewer),
        "winners": list(state.winners),
    }
    if viewer is not None and state.hands:
        view["missing_cost"] = missing_cost(state, viewer)
        view["joined"] = cities_joined(state, viewer)
    return view
