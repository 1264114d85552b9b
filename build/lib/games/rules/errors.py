"""The two ways the rules engine says no."""


class IllegalMove(Exception):
    """A move that the rules forbid.

    ``rule`` is a short stable code (for tests, logs and bots); the message names the
    rule and the line or point concerned, in words a player understands.
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message


class InvalidEvent(Exception):
    """An event that cannot follow the log before it (a corrupt or forged record).

    ``seq`` is the event's sequence number (or its 1-based position when it has none).
    """

    def __init__(self, seq: int, message: str) -> None:
        super().__init__(f"event {seq}: {message}")
        self.seq = seq
        self.message = message
