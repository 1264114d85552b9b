"""The two ways the rules engine says no."""


class IllegalMove(Exception):
    """A move that the rules forbid.

    ``rule`` is a stable code and ``facts`` its subject, so the edge can word it in the
    player's language; the message is plain English for logs.
    """

    def __init__(self, rule: str, message: str, **facts: object) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message
        self.facts = facts


class InvalidEvent(Exception):
    """An event that cannot follow the log before it (a corrupt or forged record)."""

    def __init__(self, seq: int, message: str) -> None:
        super().__init__(f"event {seq}: {message}")
        self.seq = seq
        self.message = message
