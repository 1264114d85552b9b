"""The two ways the rules engine says no."""


class IllegalMove(Exception):
    """A move that the rules forbid.

    ``rule`` is a short stable code (for tests, logs and bots) and ``facts`` what it is
    about (``line``, ``point``, ``seat``, counts): the edge words them for the player, in
    their language, with the board's names for places. The message says the same in plain
    English with coordinates, for logs and for records checked from outside.
    """

    def __init__(self, rule: str, message: str, **facts: object) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message
        self.facts = facts


class InvalidEvent(Exception):
    """An event that cannot follow the log before it (a corrupt or forged record).

    ``seq`` is the event's sequence number (or its 1-based position when it has none).
    """

    def __init__(self, seq: int, message: str) -> None:
        super().__init__(f"event {seq}: {message}")
        self.seq = seq
        self.message = message
