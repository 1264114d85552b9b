"""Variant options, fixed when a game is created and recorded in its first event."""

from __future__ import annotations

from dataclasses import asdict, dataclass

MAX_EXCLUSIVE_TRACKS = 6


@dataclass(frozen=True)
class Options:
    """How a game is played.

    ``exclusive_tracks``: coloured tracks per player and round (0: off, 3: published).
    ``cities_must_join_start``: the stricter reading, cities joined through the start marker.
    """

    exclusive_tracks: int = 0
    cities_must_join_start: bool = False
    take_backs: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.exclusive_tracks, bool) or not isinstance(self.exclusive_tracks, int):
            raise ValueError("exclusive_tracks must be a whole number")
        if not 0 <= self.exclusive_tracks <= MAX_EXCLUSIVE_TRACKS:
            raise ValueError(f"exclusive_tracks must be between 0 and {MAX_EXCLUSIVE_TRACKS}")
        if not isinstance(self.cities_must_join_start, bool):
            raise ValueError("cities_must_join_start must be true or false")
        if not isinstance(self.take_backs, bool):
            raise ValueError("take_backs must be true or false")

    def to_dict(self) -> dict:
        """The options as events hold them; ``take_backs`` only when on, so older records
        stay as they were."""
        data = asdict(self)
        if not self.take_backs:
            del data["take_backs"]
        return data

    @classmethod
    def from_dict(cls, data: dict | None) -> Options:
        """Read options from an event or record; unknown keys are ignored."""
        data = data or {}
        return cls(
            exclusive_tracks=data.get("exclusive_tracks", 0),
            cities_must_join_start=data.get("cities_must_join_start", False),
            take_backs=data.get("take_backs", False),
        )
