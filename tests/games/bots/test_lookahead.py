import random

from games import rules
from games.bots.lookahead import REPLY_ROUNDS, Components, missing_after_replies, replies
from games.bots.reading import sample_tables
from games.bots.strong import candidate_plans, own_view
from tests.games.bots.positions import one_round_of_greedy_play


def positions():
    for seed in (8, 9):
        yield from one_round_of_greedy_play(seed)[::4]


def test_the_others_answer_as_players_heading_for_their_cities_would():
    checked = 0
    for state in positions():
        seat = state.seat_to_move
        table = sample_tables(own_view(state, seat), seat, random.Random(2), 1)[0]
        answered = replies(state, seat, table)
        built = dict(state.built)
        spent: dict[int, list[int]] = {}
        for line, builder in answered:
            assert builder != seat
            assert line not in built
            a, b, cost = state.board.lines[line]
            network = rules.reach(state.board, built, builder, [state.start_point(builder)])
            assert a in network or b in network  # a legal line: it touches the builder's network
            built[line] = rules.Track(builder, False)
            spent.setdefault(builder, []).append(cost)
        for costs in spent.values():
            # At most two points a turn, for REPLY_ROUNDS turns.
            assert sum(costs) <= 2 * REPLY_ROUNDS
        # The round ends with the first line that joins any seat's cities, as in the
        # engine: no seat's cities are joined before the last line answered.
        before_last = {
            **state.built,
            **{line: rules.Track(who, False) for line, who in answered[:-1]},
        }
        for s, hand in enumerate(table):
            assert not set(hand) <= rules.reach(state.board, before_last, s, hand[:1])
        checked += len(answered)
    assert checked > 50


def test_the_seat_is_left_its_exact_missing_cost_after_the_answers():
    checked = 0
    for state in positions():
        seat = state.seat_to_move
        view = own_view(state, seat)
        table = sample_tables(view, seat, random.Random(3), 1)[0]
        for plan in candidate_plans(view, seat)[:3]:
            scratch = view.copy()
            for line in plan.lines:
                scratch.built[line] = rules.Track(seat, False)
            scratch.supply_left -= len(plan.lines)
            alone = rules.missing_cost(scratch, seat)
            for line, builder in replies(scratch, seat, table):
                scratch.built[line] = rules.Track(builder, False)
            after = missing_after_replies(view, seat, plan.lines, [table])
            assert after == rules.missing_cost(scratch, seat) <= alone
            checked += 1
    assert checked > 10


def test_the_networks_kept_as_lines_are_built_are_those_a_search_finds():
    rng = random.Random(5)
    for state in positions():
        board = state.board
        built = dict(state.built)
        kept = {seat: Components(board, built, seat) for seat in [None, *range(state.seat_count)]}
        free = [line for line in range(len(board.lines)) if line not in built]
        for line in rng.sample(free, 25):
            built[line] = rules.Track(rng.randrange(state.seat_count), False)
            for components in kept.values():
                components.join(line)
            for seat, components in kept.items():
                for point in rng.sample(range(len(board.points)), 5):
                    assert components.of(point) == rules.reach(board, built, seat, [point])


def test_what_is_shared_between_plans_changes_no_answer():
    """The strong bot plays every candidate out sharing what is worked out on the
    position: each result is what a call of its own gives."""
    checked = 0
    for state in positions():
        seat = state.seat_to_move
        view = own_view(state, seat)
        tables = sample_tables(view, seat, random.Random(4), 3)
        shared: dict = {}
        for plan in candidate_plans(view, seat)[:4]:
            alone = missing_after_replies(view, seat, plan.lines, tables)
            assert missing_after_replies(view, seat, plan.lines, tables, shared) == alone
            assert missing_after_replies(view, seat, plan.lines[::-1], tables, shared) == alone
            checked += 1
    assert checked > 10
