"""Dealing cities. The caller passes the random source and the deal is recorded, so
replays need no randomness."""

from __future__ import annotations

from collections.abc import Sequence

from .boards import COLOURS, get_board
from .errors import IllegalMove
from .events import ROUND_STARTED
from .state import AWAITING_DEAL, GameState

MIN_SEATS = 2
MAX_SEATS = 6


def check_seat_count(seats: int) -> None:
    if isinstance(seats, bool) or not isinstance(seats, int) or not MIN_SEATS <= seats <= MAX_SEATS:
        raise ValueError(f"a game has {MIN_SEATS} to {MAX_SEATS} players, not {seats!r}")


def deal(board: str, seats: int, rng) -> list[list[str]]:
    """Five cities for each seat, one of each colour, no city twice (``rng``: a ``Random``)."""
    check_seat_count(seats)
    the_board = get_board(board)
    hands: list[list[str]] = [[] for _ in range(seats)]
    for colour in COLOURS:
        drawn = rng.sample(the_board.cities_of(colour, seats), seats)
        for hand, city in zip(hands, drawn, strict=True):
            hand.append(city.name)
    return hands


def check_hands(state: GameState, hands: Sequence[Sequence[str]]) -> list[list[str]]:
    """Refuse a deal that breaks the set-up rules; return it as lists of names."""
    board = state.board
    if not isinstance(hands, list | tuple) or len(hands) != state.seat_count:
        raise IllegalMove("bad_deal", f"a deal has one hand for each of {state.seat_count} seats")
    seen: set[str] = set()
    result = []
    for seat, hand in enumerate(hands):
        if hand is None:
            raise IllegalMove("hidden_hand", f"seat {seat}'s hand is hidden in this record")
        if not isinstance(hand, list | tuple) or len(hand) != len(COLOURS):
            raise IllegalMove("bad_deal", f"seat {seat}'s hand must hold {len(COLOURS)} cities")
        colours = []
        for name in hand:
            city = board.city_by_name.get(name) if isinstance(name, str) else None
            if city is None:
                raise IllegalMove("bad_deal", f"{name!r} is not a city on {board.title}")
            if city.dashed and state.seat_count <= 3:
                raise IllegalMove(
                    "bad_deal", f"{name} is left out of games of {state.seat_count} players"
                )
            if name in seen:
                raise IllegalMove("bad_deal", f"{name} is dealt twice")
            seen.add(name)
            colours.append(city.colour)
        if sorted(colours) != sorted(COLOURS):
            raise IllegalMove("bad_deal", f"seat {seat}'s hand must hold one city of each colour")
        result.append(list(hand))
    return result


def round_started(state: GameState, hands: Sequence[Sequence[str]]) -> dict:
    """The event that starts the next round with ``hands`` (checked)."""
    if state.phase != AWAITING_DEAL:
        raise IllegalMove("not_awaiting_deal", "a round can start only after the last one scored")
    return {
        "type": ROUND_STARTED,
        "round": state.round + 1,
        "first_seat": state.round % state.seat_count,
        "hands": check_hands(state, hands),
    }
