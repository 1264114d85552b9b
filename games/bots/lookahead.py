"""What the bots' what-ifs keep up to date as lines are built: the points each seat's
usable track joins (``Components``), and whether a line ends the round
(``joins_some_seat``). A search of the network after every line of a what-if costs more
than joining two sets (see ``rollout``).
"""

from __future__ import annotations

from games import rules


def joins_some_seat(
    board: rules.Board,
    built: rules.Built,
    line: int,
    needs: list[set[int]],
    joined: Components,
) -> bool:
    """Whether the track through ``line`` joins all that some seat must join (``needs``,
    by seat), as that seat may use the track. ``joined``: the points joined by any track."""
    end = board.lines[line][0]
    # All track: what any seat may use, and more. Most lines join nobody: this rules them out.
    reached = joined.of(end)
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
