from django.dispatch import Signal

# Sent inside the write transaction before events are written, with game, state, events,
# snapshot, seats; receivers return rows to insert with the events (an exception rolls back).
events_recorded = Signal()

# Sent after events committed, with game, events, seats, written: follow-up work hangs
# here, outside the transaction, so a failure never loses a move.
events_appended = Signal()

# Sent inside the invitation's (or fresh link's) transaction, with seat, reminder, fresh_link.
seat_invited = Signal()

# Sent inside the transaction where an invited player declines, with seat.
seat_declined = Signal()

# Sent after a table-talk report committed, with message and seat (the reporter).
talk_reported = Signal()

# Sent after a first look at the board at a version was recorded, with seat and version.
turn_seen = Signal()

# Sent inside the transaction that renews a seat's links, with seat.
seat_links_renewed = Signal()

# Sent after a seat's build plan was set has committed, with game and seat.
plan_changed = Signal()
