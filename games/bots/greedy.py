"""The greedy bot: quick and simple.

``greedy_move`` starts on the city of its hand cheapest to join to the other four, then
builds along the cheapest path from its network to its nearest city not yet joined.
"""

from __future__ import annotations

from games import rules


def choose_start(state: rules.GameState, seat: int) -> int:
    """The free city of ``seat``'s hand cheapest to join to the other four (start markers
    are placed before any track: the bare board's distances)."""
    board = state.board
    cities = [board.city_point(name) for name in state.hands[seat]]
    taken = set(state.starts)
    best = None
    for city in cities:
        if city in taken:
            continue
        dist = rules.bare_distances(board, city)
        total = sum(dist[other] for other in cities)
        if best is None or total < best[0]:
            best = (total, city)
    if best is not None:
        return best[1]
    # All five cities hold other markers: take the free point nearest to them.
    dist = list(map(min, *(rules.bare_distances(board, city) for city in cities)))
    return min((d, p) for p, d in enumerate(dist) if p not in taken)[1]


def next_line_towards_city(state: rules.GameState, seat: int) -> int | None:
    """The first line to build on a cheapest path from the network to the nearest city
    of ``seat`` not yet in it (None when there is none)."""
    return rules.first_line_towards(
        state.board, state.built, seat, rules.network(state, seat), state.terminals(seat)
    )


def greedy_move(state: rules.GameState, seat: int) -> rules.Move:
    """A simple, quick player: the nearest city first, one cheapest path at a time.

    Under the exclusive-track variant it spends its coloured tracks on its first lines,
    where they keep others off its way.
    """
    if state.phase == rules.PLACING:
        return rules.PlaceStart(state.board.points[choose_start(state, seat)])
    board = state.board
    scratch = state.copy()
    lines: list[rules.Line] = []
    coloured: set[int] = set()
    while len(lines) < 2:
        line = next_line_towards_city(scratch, seat)
        if line is None:
            break
        cost = board.lines[line][2]
        if lines and cost == 2:
            break  # a double line is built alone
        colour = rules.may_colour(scratch, seat, board.line_points(line))
        if colour:
            coloured.add(len(lines))
            scratch.exclusive_left[seat] -= 1
        else:
            scratch.supply_left -= 1
        lines.append(board.line_points(line))
        scratch.built[line] = rules.Track(seat, colour)
        if cost == 2 or scratch.supply_left == 0 or rules.cities_joined(scratch, seat):
            break  # the turn (or the round) ends here
    if lines:
        return rules.Build(tuple(lines), frozenset(coloured))
    legal = rules.legal_lines(state, seat)
    return rules.Build((legal[0],)) if legal else rules.Pass()
