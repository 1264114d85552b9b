import secrets

import pytest

from games import rules
from games.services import load_state, random_deal
from tests.factories import GameFactory


def new_state(seats: int, board: str = "transamerica"):
    return rules.replay([rules.game_created(board, seats, rules.Options())])


def test_the_deal_is_drawn_from_the_systems_secure_source():
    assert isinstance(random_deal.rng, secrets.SystemRandom)


@pytest.mark.parametrize(("board", "seats"), [("transamerica", 2), ("transeuropa", 6)])
def test_deal_round_gives_each_seat_five_cities_of_five_colours(board, seats):
    state = new_state(seats, board)
    event = random_deal.deal_round(state)
    assert event["type"] == "round_started"
    assert event["round"] == 1
    hands = event["hands"]
    assert len(hands) == seats
    assert all(len(hand) == 5 for hand in hands)
    names = [city for hand in hands for city in hand]
    assert len(set(names)) == len(names)
    for hand in hands:
        colours = {state.board.city_by_name[name].colour for name in hand}
        assert len(colours) == 5
    # The engine accepts it as the start of the round.
    assert rules.apply(state, event).round == 1


def test_deals_differ_from_one_draw_to_the_next():
    state = new_state(3)
    deals = {str(random_deal.deal_round(state)["hands"]) for _ in range(20)}
    assert len(deals) > 1


@pytest.mark.django_db
def test_the_recorded_deal_is_the_one_replayed():
    game = GameFactory()
    recorded = game.events.get(type="round_started").data["hands"]
    assert [list(hand) for hand in load_state(game).hands] == recorded
