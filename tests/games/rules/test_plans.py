"""Build plans in the engine: the pure step (state, seat, plan -> move, or why it stops)."""

import pytest

from games import rules
from games.bots import greedy_move
from games.rules import plans

from .positions import TA_HAND_A, TA_HAND_B, TA_HAND_C, cheapest_path, new_round, play

START_0 = (10, 6)
START_1 = (3, 1)  # Helena


def ids(state, lines):
    return tuple(state.board.line_id(line) for line in lines)


def placed(options=None):
    return new_round([TA_HAND_A, TA_HAND_B], options=options, starts=[START_0, START_1])


def play_out(state, seat, plan, turns=60):
    """Play ``plan`` for ``seat`` and greedy moves for the others until the plan stops."""
    for _turn in range(turns):
        if state.phase not in (rules.PLACING, rules.BUILDING):
            return state, plans.Stop(plans.ROUND_ENDED)
        mover = state.seat_to_move
        if mover != seat:
            state = play(state, mover, greedy_move(state, mover))
            continue
        move = rules.plan_step(state, seat, plan)
        if isinstance(move, rules.Stop):
            return state, move
        state = play(state, seat, move)
    raise AssertionError("the plan never stopped")


def test_a_route_is_built_in_order_two_flat_lines_a_turn():
    state = placed()
    route = cheapest_path(state, START_0, "Chicago")
    plan = rules.Plan(plans.ROUTE, 1, route=ids(state, route))
    move = rules.plan_step(state, 0, plan)
    costs = [state.board.lines[i][2] for i in ids(state, route)]
    if costs[0] == 1 and costs[1] == 1:
        assert move == rules.Build(tuple(route[:2]))
    else:
        assert move == rules.Build(tuple(route[:1]))


def test_a_double_line_of_a_route_is_built_alone():
    state = new_round([TA_HAND_A, TA_HAND_B], starts=[START_1, START_0])
    board = state.board
    double = board.line_id((START_1, (4, 1)))
    far = board.point_index[(4, 1)]
    after = next(
        line for line in board.point_lines[far] if line != double and board.lines[line][2] == 1
    )
    plan = rules.Plan(plans.ROUTE, 1, route=(double, after))
    assert rules.plan_step(state, 0, plan) == rules.Build((board.line_points(double),))


def test_a_route_stops_when_another_seat_takes_one_of_its_lines():
    state = placed()
    route = cheapest_path(state, START_0, "Chicago")
    plan = rules.Plan(plans.ROUTE, 1, route=ids(state, route))
    state = play(state, 0, rules.plan_step(state, 0, plan))
    # Seat 1 is far away: put its track on the route as if it had reached it.
    taken = route[-1]
    state = state.copy()
    state.built[state.board.line_id(taken)] = rules.Track(1, False)
    state.turn += 1  # seat 0 to move again
    stop = rules.plan_step(state, 0, plan)
    assert stop == rules.Stop(plans.LINE_TAKEN, line=state.board.line_id(taken))


def test_a_route_stops_when_others_open_a_cheaper_way_to_its_end():
    state = placed()
    board = state.board
    # A roundabout route to Chicago: cheapest path via a detour point.
    detour = (10, 3)
    route = cheapest_path(state, START_0, detour) + cheapest_path(state, detour, "Chicago")
    slack = plans.route_slack(state, 0, ids(state, route))
    plan = rules.Plan(plans.ROUTE, 1, route=ids(state, route), slack=slack)
    # As set, the way along the route costs more than the cheapest: it still holds, as
    # the player chose it, and building it never stops it.
    assert slack > 0
    assert isinstance(rules.plan_step(state, 0, plan), rules.Build)
    walked = play(state, 0, rules.plan_step(state, 0, plan))
    walked = play(walked, 1, greedy_move(walked, 1))
    assert isinstance(rules.plan_step(walked, 0, plan), rules.Build)
    # Seat 1's black track now lies on a cheapest way from (10,6) to Chicago.
    cheap = cheapest_path(state, START_0, "Chicago")
    state = state.copy()
    for line in cheap[1:]:
        if board.line_id(line) not in ids(state, route):
            state.built[board.line_id(line)] = rules.Track(1, False)
    state.turn += 2
    stop = rules.plan_step(state, 0, plan)
    assert stop == rules.Stop(plans.CHEAPER_WAY)


def test_a_route_ends_once_built():
    state = placed()
    route = cheapest_path(state, START_0, (12, 6))
    plan = rules.Plan(plans.ROUTE, 1, route=ids(state, route))
    state, stop = play_out(state, 0, plan)
    assert stop == rules.Stop(plans.JOINED)
    assert all(state.board.line_id(line) in state.built for line in route)


def test_a_one_line_route_from_the_network_is_built_whichever_way_the_board_names_it():
    state = placed()
    board = state.board
    start = board.point_index[START_0]
    for line in board.point_lines[start]:
        if board.lines[line][2] != 1 or board.lines[line][0] == start:
            continue
        # The board names this line with the network's end second.
        plan = rules.Plan(plans.ROUTE, 1, route=(line,), slack=0)
        assert rules.plan_step(state, 0, plan) == rules.Build((board.line_points(line),))
        return
    pytest.fail("no line from the start marker that the board names toward it")


def test_a_route_uses_coloured_track_only_on_lines_marked_so():
    state = placed(rules.Options(exclusive_tracks=3))
    route = cheapest_path(state, START_0, "Chicago")
    route_ids = ids(state, route)
    plan = rules.Plan(plans.ROUTE, 1, route=route_ids, coloured={route_ids[1]})
    state, _stop = play_out(state, 0, plan)
    for line in route_ids:
        track = state.built.get(line)
        if track is not None and track.seat == 0:
            assert track.exclusive == (line == route_ids[1])


@pytest.mark.parametrize("board_name", ["transamerica", "transeuropa"])
@pytest.mark.parametrize("strict", [False, True])
def test_toward_a_city_reaches_it_along_a_cheapest_way(board_name, strict):
    board = rules.get_board(board_name)
    hands = hands_for(board)
    options = rules.Options(exclusive_tracks=3, cities_must_join_start=strict)
    state = new_round(hands, board=board_name, options=options)
    state = play(state, 0, rules.PlaceStart(board.city_by_name[hands[0][0]].point))
    state = play(state, 1, rules.PlaceStart(board.city_by_name[hands[1][0]].point))
    target = hands[0][-1]
    point = board.city_point(target)
    plan = rules.Plan(plans.CITY, 1, city=target)
    graph = rules.cost_graph(board, state.built, 0)
    before = rules.distances(graph, rules.network(state, 0))[point]
    turns = 0
    while True:
        if state.seat_to_move == 1:
            # The other seat walls with coloured track where it can: the plan never uses it.
            state = play(state, 1, greedy_move(state, 1))
            continue
        move = rules.plan_step(state, 0, plan)
        if isinstance(move, rules.Stop):
            break
        # Each turn brings the city nearer by what the lines cost: a cheapest way.
        state = play(state, 0, move)
        assert not any(state.built[board.line_id(line)].exclusive for line in move.lines)
        turns += 1
        if state.phase != rules.BUILDING:
            break
    if state.phase == rules.BUILDING:
        assert move == rules.Stop(plans.JOINED)
        assert point in rules.network(state, 0)
    assert turns >= (before + 1) // 2 - 1
    # Others' coloured track is never part of the seat's network.
    for line, track in state.built.items():
        if track.exclusive and track.seat == 1:
            a, b, _cost = board.lines[line]
            assert not {a, b} <= rules.network(state, 0)


def hands_for(board):
    """Two hands without dashed cities, disjoint."""
    hands = [[], []]
    for colour in rules.COLOURS:
        cities = [c.name for c in board.cities if c.colour == colour and not c.dashed]
        hands[0].append(cities[0])
        hands[1].append(cities[-1])
    return hands


def test_toward_a_city_uses_the_whole_allowance_and_breaks_ties_by_line_id():
    state = placed()
    board = state.board
    plan = rules.Plan(plans.CITY, 1, city="Cincinnati")
    move = rules.plan_step(state, 0, plan)
    graph = rules.cost_graph(board, state.built, 0)
    target = board.city_point("Cincinnati")
    before = rules.distances(graph, rules.network(state, 0))[target]
    after_state = play(state, 0, move)
    graph = rules.cost_graph(board, after_state.built, 0)
    after = rules.distances(graph, rules.network(after_state, 0))[target]
    assert before - after == 2  # two flat lines or one double: the whole allowance
    # No other two-line build on a cheapest way has lower line ids.
    chosen = tuple(sorted(ids(state, move.lines)))
    for first in rules.legal_line_ids(state, 0):
        for second in [None, *rules.legal_second_line_ids(state, 0, first, False)]:
            lines = (first,) if second is None else (first, second)
            try:
                trial = play(state, 0, rules.Build(tuple(board.line_points(x) for x in lines)))
            except rules.IllegalMove:
                continue
            graph = rules.cost_graph(board, trial.built, 0)
            left = rules.distances(graph, rules.network(trial, 0))[target]
            if before - left == 2:
                assert chosen <= tuple(sorted(lines))


def test_all_my_cities_heads_for_the_cheapest_missing_city_until_all_are_joined():
    state = placed()
    board = state.board
    plan = rules.Plan(plans.ALL, 1)
    graph = rules.cost_graph(board, state.built, 0)
    dist = rules.distances(graph, rules.network(state, 0))
    nearest = min(state.terminals(0), key=lambda p: (dist[p], p))
    move = rules.plan_step(state, 0, plan)
    after = play(state, 0, move)
    graph = rules.cost_graph(board, after.built, 0)
    assert rules.distances(graph, rules.network(after, 0))[nearest] == dist[nearest] - 2
    state, stop = play_out(state, 0, plan, turns=200)
    # The plan joins all five: the round ends with seat 0 joined (or another seat first).
    assert stop == rules.Stop(plans.ROUND_ENDED)


def test_a_plan_never_carries_over_a_deal():
    state = placed()
    plan = rules.Plan(plans.ALL, 0)
    assert rules.plan_step(state, 0, plan) == rules.Stop(plans.ROUND_ENDED)


def test_a_planned_start_marker_takes_the_first_free_point():
    state = new_round([TA_HAND_A, TA_HAND_B, TA_HAND_C])
    board = state.board
    omaha, kansas = board.city_point("Omaha"), board.city_point("Kansas City")
    plan = rules.Plan(plans.ALL, 1, starts=(omaha, kansas))
    assert rules.plan_step(state, 0, plan) == rules.PlaceStart(board.points[omaha])
    state = play(state, 0, rules.PlaceStart(board.points[omaha]))
    assert rules.plan_step(state, 1, plan) == rules.PlaceStart(board.points[kansas])
    state = play(state, 1, rules.PlaceStart(board.points[kansas]))
    assert rules.plan_step(state, 2, plan) == rules.Stop(plans.START_TAKEN)


def test_a_start_only_plan_is_done_once_placed_and_a_building_plan_leaves_the_start_alone():
    state = new_round([TA_HAND_A, TA_HAND_B])
    assert rules.plan_step(state, 0, rules.Plan(plans.ALL, 1)) == rules.Stop(plans.START_NEEDED)
    plan = rules.Plan(plans.START, 1, starts=(state.board.point_index[START_0],))
    state = play(state, 0, rules.plan_step(state, 0, plan))
    state = play(state, 1, rules.PlaceStart(START_1))
    assert rules.plan_step(state, 0, plan) == rules.Stop(plans.JOINED)


def test_a_walled_in_target_stops_the_plan():
    state = placed(rules.Options(exclusive_tracks=3))
    board = state.board
    target = board.city_point("Cincinnati")
    state = state.copy()
    for line in board.point_lines[target]:
        state.built[line] = rules.Track(1, True)
    assert rules.plan_step(state, 0, rules.Plan(plans.CITY, 1, city="Cincinnati")) == rules.Stop(
        plans.UNREACHABLE
    )


def test_a_blocked_route_line_stops_the_plan():
    state = placed()
    board = state.board
    far = cheapest_path(state, (0, 0), (1, 1))  # nowhere near the network
    plan = rules.Plan(plans.ROUTE, 1, route=ids(state, far))
    stop = rules.plan_step(state, 0, plan)
    assert stop == rules.Stop(
        plans.BLOCKED, line=board.line_id(far[0]), rule="not_touching_network"
    )


def test_it_answers_only_for_the_seat_to_move():
    with pytest.raises(ValueError):
        rules.plan_step(placed(), 1, rules.Plan(plans.ALL, 1))
