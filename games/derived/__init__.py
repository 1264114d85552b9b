"""Copies derived from the event log, never a second truth: a game's state per version
(snapshots) and the Game row's projection columns."""
