"""Looking ahead: what a turn leaves the seat once the others have answered it.

Most turns, many moves lower the seat's missing cost equally; what tells them apart is
what the others do next. Track is shared, so the others' lines can join the seat's cities
for free, or be drawn elsewhere by the seat's own track. For each guess at their cities
(``reading.sample_tables``) the others play their next turns heading for their nearest
city, and the seat's missing cost is then counted exactly. The move with the lowest
average wins.
"""

from __future__ import annotations

from collections.abc import Sequence

from games import rules

# The others' turns played out after the seat's move: each of them this many times.
REPLY_ROUNDS = 4


def missing_after_replies(
    state: rules.GameState,
    seat: int,
    lines: Sequence[int],
    tables: Sequence[list],
    known: dict | None = None,
) -> float:
    """The seat's missing cost once it has built ``lines`` and the others have answered,
    averaged over ``tables`` (guesses at every seat's city points). ``known``: what is
    already worked out on ``state`` (see ``replies``), shared by calls on one position."""
    if known is None:
        known = {}
    total = 0
    for table in tables:
        # Guesses often repeat, and so do the others' answers: the track left (black lines
        # added to ``state``, whoever built them) is counted once.
        guess = ("table", frozenset(lines), tuple(map(tuple, table)))
        if guess not in known:
            scratch = state.copy()
            for line in lines:
                scratch.built[line] = rules.Track(seat, False)
            scratch.supply_left -= len(lines)
            answered = replies(scratch, seat, table, known, tuple(lines))
            left = ("left", frozenset([*lines, *(line for line, _builder in answered)]))
            if left not in known:
                for line, builder in answered:
                    scratch.built[line] = rules.Track(builder, False)
                known[left] = rules.missing_cost(scratch, seat)
            known[guess] = known[left]
        total += known[guess]
    return total / len(tables)


def replies(
    state: rules.GameState,
    seat: int,
    table: list,
    known: dict | None = None,
    added: tuple[int, ...] = (),
) -> list[tuple[int, int]]:
    """The lines the others build (with who builds each) in their next ``REPLY_ROUNDS``
    turns each, heading for their nearest city in ``table``, until a line joins some
    seat's cities or the supply runs out (either ends the round, as in ``turns``).

    ``known`` keeps each first line found, for calls on positions that differ only by
    black lines (``added`` to one base position, itself, by every caller sharing it): a
    what-if often reaches the same track as another, and the search is the dear part.
    """
    board = state.board
    built = dict(state.built)
    supply = state.supply_left
    others = [(seat + k) % state.seat_count for k in range(1, state.seat_count)]
    # What must be joined for each seat, as in ``GameState.terminals``.
    needs = [set(table[s]) for s in range(state.seat_count)]
    if state.options.cities_must_join_start:
        for s, need in enumerate(needs):
            need.add(state.start_point(s))
    # Each seat's network is asked for after every line: kept up to date as lines are
    # built rather than searched for again (the same sets as ``rules.reach``).
    # Every guess at the others' cities starts from the same track: worked out once.
    kept = ("kept", frozenset(added))
    if known is None or kept not in known:
        usable = {other: Components(board, built, other) for other in (*others, None)}
        if known is not None:
            known[kept] = usable
    else:
        usable = known[kept]
    usable = {other: components.copy() for other, components in usable.items()}
    joined = usable.pop(None)
    answered = []
    for _round in range(REPLY_ROUNDS):
        for other in others:
            start = state.start_point(other)
            if start is None:
                continue
            spent = 0
            while spent < 2 and supply > 0:
                key = ("first", frozenset(added), other, tuple(table[other]))
                if known is not None and key in known:
                    line = known[key]
                else:
                    network = usable[other].of(start)
                    line = rules.first_line_towards(board, built, other, network, table[other])
                    if known is not None:
                        known[key] = line
                cost = board.lines[line][2] if line is not None else 0
                if line is None or (spent and cost == 2):
                    break  # nothing left to build, or a double line, which goes alone
                built[line] = rules.Track(other, False)
                for components in usable.values():
                    components.join(line)  # black track: every seat may use it
                joined.join(line)
                answered.append((line, other))
                added = (*added, line)
                supply -= 1
                spent += cost
                if supply == 0 or joins_some_seat(board, built, line, needs, joined):
                    return answered
    return answered


def joins_some_seat(
    board: rules.Board,
    built: rules.Built,
    line: int,
    needs: list[set[int]],
    joined: Components | None = None,
) -> bool:
    """Whether the track through ``line`` joins all that some seat must join (``needs``,
    by seat), as that seat may use the track. ``joined``: the points joined by any track,
    when kept already (else worked out here)."""
    end = board.lines[line][0]
    # All track: what any seat may use, and more. Most lines join nobody: this rules them out.
    reached = joined.of(end) if joined is not None else rules.reach(board, built, None, [end])
    return any(
        need <= reached and need <= rules.reach(board, built, seat, [end])
        for seat, need in enumerate(needs)
    )


class Components:
    """The points joined to each other by the track ``seat`` may use (None: by any track),
    as ``rules.reach`` gives them, kept up to date as lines are built: a search of the
    network after every line of a what-if costs more than joining two sets."""

    def __init__(self, board: rules.Board, built: rules.Built, seat: int | None):
        self.lines = board.lines
        self.root: dict[int, int] = {}  # point -> a point standing for its set
        self.members: dict[int, set[int]] = {}  # that point -> the set
        for line, track in built.items():
            if seat is None or not track.exclusive or track.seat == seat:
                self.join(line)

    def copy(self) -> Components:
        """The same sets, to build on apart from these."""
        twin = Components.__new__(Components)
        twin.lines = self.lines
        twin.root = dict(self.root)
        twin.members = {root: set(points) for root, points in self.members.items()}
        return twin

    def join(self, line: int) -> None:
        """Count ``line`` as track the seat may use."""
        a, b, _cost = self.lines[line]
        roots = []
        for point in (a, b):
            root = self.root.get(point)
            if root is None:
                root = self.root[point] = point
                self.members[point] = {point}
            roots.append(root)
        big, small = roots
        if big == small:
            return
        if len(self.members[big]) < len(self.members[small]):
            big, small = small, big
        moved = self.members.pop(small)
        for point in moved:
            self.root[point] = big
        self.members[big] |= moved

    def of(self, point: int) -> set[int]:
        """The points joined to ``point`` (``point`` alone when no track touches it); the
        set is the one kept, so it grows with later lines: read it before building more."""
        root = self.root.get(point)
        return self.members[root] if root is not None else {point}
