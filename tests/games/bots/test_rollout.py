"""Playing a round out: legal lines, the engine's round end, exact losses."""

import random

from games import rules
from games.bots import rollout
from games.bots.reading import sample_tables
from games.bots.strong import Costs, candidate_plans, own_view
from tests.games.bots.positions import one_round_of_greedy_play


def positions():
    for seed in (8, 9):
        yield from one_round_of_greedy_play(seed)[::4]


def test_everyone_builds_legal_lines_until_some_seat_is_joined():
    checked = 0
    for state in positions():
        seat = state.seat_to_move
        table = sample_tables(own_view(state, seat), seat, random.Random(2), 1)[0]
        log: list = []
        losses = rollout.play_round(
            state, dict(state.built), state.supply_left, seat, table, (), log
        )
        built = dict(state.built)
        spent: dict[int, int] = {}
        for line, builder in log:
            assert line not in built
            a, b, cost = state.board.lines[line]
            network = rules.reach(state.board, built, builder, [state.start_point(builder)])
            assert a in network or b in network  # it touches the builder's network
            built[line] = rules.Track(builder, False)
            spent[builder] = spent.get(builder, 0) + cost
        # The round ends with the first line that joins a seat's cities, as in the engine.
        before_last = {**state.built, **{line: rules.Track(w, False) for line, w in log[:-1]}}
        assert not any(
            set(hand) <= rules.reach(state.board, before_last, s, hand[:1])
            for s, hand in enumerate(table)
        )
        # Each loss is the exact missing cost on the final track; the joined seat's is 0.
        final = state.copy()
        final.built = built
        final.hands = [tuple(state.board.city_at[p].name for p in hand) for hand in table]
        assert losses == [rules.missing_cost(final, s) for s in range(state.seat_count)]
        checked += len(log)
    assert checked > 50


def test_what_is_shared_between_plans_changes_no_answer():
    checked = 0
    for state in positions():
        seat = state.seat_to_move
        view = own_view(state, seat)
        tables = sample_tables(view, seat, random.Random(4), 3)
        shared: dict = {}
        for plan in candidate_plans(view, seat, Costs(view, seat))[:4]:
            alone = rollout.worth(view, seat, plan.lines, tables)
            assert rollout.worth(view, seat, plan.lines, tables, shared) == alone
            assert rollout.worth(view, seat, plan.lines[::-1], tables, shared) == alone
            checked += 1
    assert checked > 10


def test_played_out_with_the_real_hands_someone_joins_and_loses_nothing():
    for state in positions():
        seat = state.seat_to_move
        table = [[state.board.city_point(n) for n in hand] for hand in state.hands]
        losses = rollout.round_losses(state, seat, (), table)
        assert min(losses) == 0  # the round ends when someone joins their cities


def test_the_playout_search_finds_the_engines_ways():
    """The playouts search over lines' costs they keep up to date (the engine's
    ``cheapest_paths_by_cost``): with the costs of the position, it gives what the engine's
    ``cheapest_paths`` gives, the same distances and lines, ties and coloured track
    included, so the rounds played out are the same."""
    from tests.games.bots.positions import greedy_positions

    checked = 0
    for board, seats, seed in (("transamerica", 4, 2), ("transeuropa", 6, 4)):
        options = rules.Options(exclusive_tracks=3)
        for state in greedy_positions(board, seats, seed, options, every=5):
            if state.phase != rules.BUILDING:
                continue
            for seat in range(seats):
                network = rules.network(state, seat)
                targets = set(map(state.board.city_point, state.hands[seat])) - network
                if not targets:
                    continue
                costs = rules.line_costs(state.board, state.built, seat)
                expected = rules.cheapest_paths(state.board, state.built, seat, network, targets)
                by_cost = rules.cheapest_paths_by_cost(state.board, costs, network, targets)
                assert by_cost == expected
                checked += 1
    assert checked > 50


def test_a_turns_lines_are_the_first_free_lines_of_the_whole_searchs_way():
    """The playout's search stops once the way to the nearest city is known: the lines
    are those of the way a search of the whole board finds (the nearest city, the
    lowest-numbered on a tie, and the lines it is reached by)."""
    from tests.games.bots.positions import greedy_positions

    checked = 0
    for board, seats, seed in (("transamerica", 4, 3), ("transeuropa", 5, 5)):
        for state in greedy_positions(board, seats, seed, rules.Options(exclusive_tracks=3), 5):
            if state.phase != rules.BUILDING:
                continue
            for seat in range(seats):
                network = rules.network(state, seat)
                targets = set(map(state.board.city_point, state.hands[seat])) - network
                dist, via = rules.cheapest_paths(state.board, state.built, seat, network)
                found = [(dist[t], t) for t in targets if dist[t] < rules.INFINITY]
                expected = []
                if found:
                    point = min(found)[1]
                    while point not in network:
                        if via[point] not in state.built:
                            expected.append(via[point])
                        a, b, _cost = state.board.lines[via[point]]
                        point = a if b == point else b
                costs = rules.line_costs(state.board, state.built, seat)
                lines = rollout.turn_lines(state.board, state.built, network, targets, costs)
                assert lines == expected[::-1][:2]
                checked += bool(expected)
    assert checked > 50
