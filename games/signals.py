from django.dispatch import Signal

# Sent inside the write transaction while events are being appended, once the game's
# projection is computed and before anything is written, with ``game``, ``state`` (the
# engine's state after the events), ``events`` (the new Event rows, not written yet),
# ``snapshot`` (games.derived.snapshots.Snapshot: that state with the events of the round so far)
# and ``seats`` (the game's seats in position order, with their accounts). A receiver
# returns the rows that must commit or roll back together with the events, such as email
# outbox rows: new model instances, which the write path inserts in the statement that
# appends the events (helpers.claims), skipping any that a unique constraint finds
# written already. An exception here rolls the move back.
events_recorded = Signal()

# Sent after the transaction that appended events to a game has committed, with
# ``game`` (the Game, its projection up to date), ``events`` (the new Event rows, in seq
# order), ``seats`` (the game's seats as that transaction left them) and ``written`` (the
# rows events_recorded's receivers returned that were inserted with the events; those
# found written before are left out). Emails, bots and other follow-up work hang off this;
# receivers run outside the write transaction, so a failure there never loses a move.
events_appended = Signal()

# Sent inside the transaction that invites a player to a seat, or mails a seat a fresh
# link, with ``seat``, ``reminder`` (True when it repeats an invitation not yet taken) and
# ``fresh_link`` (True when the email carries the seat's pending fresh link).
seat_invited = Signal()

# Sent after a player's report of a table-talk message has committed, with ``message``
# (the TalkMessage) and ``seat`` (the reporter's Seat): staff are told.
talk_reported = Signal()

# Sent after a player's first look at their board at a version was recorded (the board
# page posts it), with ``seat`` and ``version``: a turn seen but not played still gets
# its email a while later.
turn_seen = Signal()

# Sent inside the transaction that renews a seat's links (its link nonce replaced: a fresh
# link used, the seat handed on or left), with ``seat``: what was tied to the old links
# (the seat's channels besides email) goes.
seat_links_renewed = Signal()

# Sent after a seat's build plan was set has committed, with ``game`` and ``seat``: if it
# is the seat's turn, its plan plays (games.receivers).
plan_changed = Signal()
