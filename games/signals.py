from django.dispatch import Signal

# Sent after the transaction that appended events to a game has committed, with
# ``game`` (the Game, its projection up to date) and ``events`` (the new Event rows,
# in seq order). Emails, bots and other follow-up work hang off this; receivers run
# outside the write transaction, so a failure there never loses a move.
events_appended = Signal()
