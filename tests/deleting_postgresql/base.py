"""The project's PostgreSQL backend, whose flush deletes the rows instead of truncating.

After each test that reads committed data (the browser's live server, the SMTP receiver,
a worker) Django empties every table with one TRUNCATE, which gives each table and index
new files. A test writes a few rows, which DELETE removes far sooner; foreign keys are
deferred to the commit, when every table is empty. The event log refuses DELETE (its
append-only trigger, games/migrations/0002) and is truncated alone.
"""

from django.db.backends.postgresql.operations import DatabaseOperations as Operations

from helpers.postgresql import base

APPEND_ONLY = {"games_event"}


class DatabaseOperations(Operations):
    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        if reset_sequences or allow_cascade:
            return super().sql_flush(
                style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )
        truncated = [table for table in tables if table in APPEND_ONLY]
        deleted = [table for table in tables if table not in APPEND_ONLY]
        return super().sql_flush(style, truncated) + [
            f"{style.SQL_KEYWORD('DELETE FROM')} {style.SQL_FIELD(self.quote_name(table))};"
            for table in deleted
        ]


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
