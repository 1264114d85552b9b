import random

import pytest

from games import rules
from games.rules.bots import BOTS, DEFAULT_BOT, choose_start, greedy_move, strong_move
from games.rules.graph import cost_graph
from games.rules.scoring import SteinerTables
from games.rules.state import Track
from tests.games.rules.positions import (
    TA_HAND_A,
    TA_HAND_B,
    TA_HAND_C,
    hand_tree,
    new_round,
    play,
    with_track,
)


@pytest.mark.parametrize("board", rules.BOARD_NAMES)
@pytest.mark.parametrize("seats", [2, 6])
def test_greedy_bots_play_whole_legal_games(board, seats):
    events = rules.simulate(board, seats, random.Random(seats), rules.Options(exclusive_tracks=3))
    state = rules.replay(events)  # every event is checked again on replay
    assert state.is_over
    assert state.winners
    assert any(e.get("exclusive") for e in events)  # the bots use coloured track


def test_simulation_is_repeatable_from_its_seed():
    a = rules.simulate("transamerica", 3, random.Random(9))
    b = rules.simulate("transamerica", 3, random.Random(9))
    assert a == b


def test_greedy_starts_on_one_of_its_cities():
    state = rules.replay([rules.game_created("transamerica", 2)])
    state = rules.apply(
        state, rules.round_started(state, rules.deal("transamerica", 2, random.Random(1)))
    )
    start = choose_start(state, 0)
    assert start in {state.board.city_point(name) for name in state.hands[0]}


def test_greedy_builds_towards_its_cities():
    state = rules.replay([rules.game_created("transamerica", 2)])
    state = rules.apply(
        state, rules.round_started(state, rules.deal("transamerica", 2, random.Random(1)))
    )
    for seat in (0, 1):
        for event in rules.decide(state, seat, rules.greedy_move(state, seat)):
            state = rules.apply(state, event)
    before = rules.missing_cost(state, 0)
    for event in rules.decide(state, 0, rules.greedy_move(state, 0)):
        state = rules.apply(state, event)
    assert rules.missing_cost(state, 0) < before


# --- the strong bot -----------------------------------------------------------------


def positions_from_play(board, seats, seed, options=None, every=7):
    """States met along a whole game of greedy bots, one every ``every`` events."""
    events = rules.simulate(board, seats, random.Random(seed), options)
    for cut in range(3, len(events), every):
        state = rules.replay(events[:cut])
        if state.seat_to_move is not None:
            yield state


@pytest.mark.parametrize("board", rules.BOARD_NAMES)
def test_steiner_tables_give_the_exact_cost_with_any_one_line_free(board):
    checked = 0
    options = rules.Options(exclusive_tracks=3)
    for state in positions_from_play(board, 4, 5, options, every=37):
        seat = state.seat_to_move
        tables = SteinerTables(cost_graph(state.board, state.built, seat), state.terminals(seat))
        assert tables.cost == rules.missing_cost(state, seat)
        for line, (a, b, _cost) in enumerate(state.board.lines):
            if line in state.built or line % 3:
                continue
            scratch = state.copy()
            scratch.built[line] = Track(seat, False)
            assert tables.cost_with_line(a, b) == rules.missing_cost(scratch, seat)
            checked += 1
    assert checked > 500


def test_steiner_tables_give_the_exact_cost_with_a_start_at_any_point():
    strict = rules.Options(cities_must_join_start=True)
    state = new_round([TA_HAND_A, TA_HAND_B], options=strict)
    cities = state.terminals(0)
    tables = SteinerTables(cost_graph(state.board, state.built, 0), cities, everywhere=True)
    for point in range(0, len(state.board.points), 5):
        scratch = state.copy()
        scratch.starts = [point, None]
        assert tables.cost_with_point(point) == rules.missing_cost(scratch, 0)


@pytest.mark.parametrize("strict", [False, True])
def test_strong_starts_where_its_cities_are_cheapest_to_join(strict):
    options = rules.Options(cities_must_join_start=strict)
    state = new_round([TA_HAND_A, TA_HAND_B, TA_HAND_C], options=options)
    move = strong_move(state, 0)
    state = play(state, 0, move)
    cheapest = min(
        SteinerTables(
            cost_graph(state.board, state.built, 0), state.terminals(0)[:5]
        ).cost_with_point(p)
        for p in range(len(state.board.points))
    )
    start = state.starts[0]
    assert (
        SteinerTables(
            cost_graph(state.board, state.built, 0), state.terminals(0)[:5]
        ).cost_with_point(start)
        == cheapest
    )
    assert rules.missing_cost(state, 0) == cheapest


def test_strong_lowers_its_missing_cost_as_much_as_any_move_can():
    for state in positions_from_play("transamerica", 3, 2, every=11):
        if state.phase != rules.BUILDING:
            continue
        seat = state.seat_to_move
        before = rules.missing_cost(state, seat)
        after = rules.missing_cost(play(state, seat, strong_move(state, seat)), seat)
        best = min(
            rules.missing_cost(play(state, seat, rules.Build((line,))), seat)
            for line in rules.legal_lines(state, seat)
        )
        # No single line does better, and a turn never gains more than 2 points.
        assert after <= best
        assert after >= before - 2


def test_strong_finishes_when_it_can():
    city = new_round([TA_HAND_A, TA_HAND_B]).board.city_by_name
    state = new_round(
        [TA_HAND_A, TA_HAND_B], starts=[city["Los Angeles"].point, city["Portland"].point]
    )
    tree = hand_tree(state, TA_HAND_A)
    state = with_track(state, tree[:-1])
    assert rules.missing_cost(state, 0) > 0
    after = play(state, 0, strong_move(state, 0))
    assert after.last_scoring["connected"] == [0]


@pytest.mark.parametrize("name", sorted(BOTS))
@pytest.mark.parametrize("board", rules.BOARD_NAMES)
def test_a_bot_never_reads_another_seats_hand(name, board):
    """The same position with other hands swapped for other valid deals: the same move."""
    bot = BOTS[name]
    rng = random.Random(11)
    moves = 0
    for state in positions_from_play(board, 4, 8, rules.Options(exclusive_tracks=3), every=9):
        seat = state.seat_to_move
        mine = set(state.hands[seat])
        for _ in range(2):
            other = state.copy()
            # Deal the other seats fresh hands from the cities this seat does not hold.
            while True:
                hands = rules.deal(board, state.seat_count, rng)
                if not mine & {c for hand in hands for c in hand}:
                    break
            hands[seat] = list(state.hands[seat])
            other.hands = [tuple(hand) for hand in hands]
            assert other.hands != state.hands
            assert bot(other, seat) == bot(state, seat)
            moves += 1
    assert moves > 10


@pytest.mark.parametrize("board", rules.BOARD_NAMES)
@pytest.mark.parametrize("options", [rules.Options(), rules.Options(3, True)])
def test_strong_bots_play_whole_legal_games(board, options):
    events = rules.simulate(board, 3, random.Random(4), options, [strong_move, greedy_move] * 2)
    state = rules.replay(events)
    assert state.is_over
    if options.exclusive_tracks:
        assert any(e.get("exclusive") and e["seat"] in (0, 2) for e in events)


def test_bots_are_listed_by_name():
    assert BOTS["greedy"] is rules.greedy_move
    assert BOTS["strong"] is strong_move
    assert DEFAULT_BOT in BOTS
