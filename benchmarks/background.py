"""Many games in a benchmark's database, fast: copies of a few games made through the write
path (not a test; used by bench_scan.py and bench_web.py --background).

A template is a game made as players make it (benchmarks/form_games.py: the new-game
form's defaults, a day a move, every move through the write path). Its copies are its
rows, copied by the database server (INSERT ... SELECT): the game's row with every
column as the write path wrote it (its log digest, deadline, reminder time, scores), its
seats, its events as they are (an engine-made log, checked by the engine when the
template was played) and its outbox rows, marked sent as a worker would have left them.
What makes a game and a seat its own is made anew, in the project's own formats: ids,
title, thread token (32 hex digits), link nonces (22 URL-safe characters), message
tokens, players' addresses; and the creator's account (a copy of the template's, at
its seat's address).

Some of the invited players' addresses have what their readers chose later, as the
project writes it: one in 50 stopped the reminders on the unsubscribe page (a mail
preference), one in 100 is suppressed (half of them unsubscribed from everything, half
bounced, as the provider's webhook records it). None reads a daily digest: the digests
due would then grow with the number of games.

A copy may be moved back in time by whole days (``days_ago``): every time of its rows
then moves with it, so it is the game the project would have written had it been played
that many days earlier (the form's default zone is UTC, its clock sleeps at the same
hours every day, and it has no weekend pause): its deadline and reminder may be due.

Runs inside a process with the benchmark's Django settings.
"""

from __future__ import annotations

import itertools
import json
import time

# Boards, players and moves of the templates: games in every phase, 57 to 114 events each
# (the deal is random: 80 to 100 a game on average).
TEMPLATES = [
    ("transamerica", 3, 60),
    ("transeuropa", 4, 90),
    ("transamerica", 5, 110),
    ("transeuropa", 6, 130),
    ("transamerica", 4, 80),
    ("transeuropa", 3, 100),
]

# SQL for a URL-safe 22-character nonce, as secrets.token_urlsafe(16) makes them.
NONCE = (
    "translate(substr(encode(decode(md5(random()::text || clock_timestamp()::text), 'hex'),"
    " 'base64'), 1, 22), '+/', '-_')"
)
HEX = "md5(random()::text || clock_timestamp()::text)"
# A hard bounce's detail as notifications.receivers records it (the provider's name, then
# its words).
BOUNCE = "Postmark: smtp; 550 5.1.1 unknown user, mailbox not found"


def make_templates(tag: str, timed: bool = True) -> list[int]:
    """The template games (ids), through the write path."""
    import form_games

    from notifications import tasks

    # Nothing is delivered while they are made (the benchmark's broker has no worker).
    tasks.deliver_after_commit = lambda *args, **kwargs: None
    ids = []
    for number, (board, players, moves) in enumerate(TEMPLATES):
        game = form_games.new_game(board, players, timed, f"{tag}{number}", f"{tag} {number}")
        ids.append(form_games.played(game, moves).pk)
    return ids


def _columns(model, *leave_out: str) -> list[str]:
    return [
        f.column
        for f in model._meta.concrete_fields
        if not f.primary_key and f.column not in leave_out
    ]


def copy_games(template: int, copies: int, days_ago: int = 0, tag: str = "bg") -> list[int]:
    """``copies`` copies of game ``template``, moved back ``days_ago`` days; their ids."""
    from django.db import connection, transaction

    from accounts.models import User
    from games.models import Event, Game, Seat
    from notifications import emails
    from notifications.models import MailPreference, Message, Suppression

    shift = f"interval '{int(days_ago)} days'"
    times = {
        model: {
            f.column
            for f in model._meta.concrete_fields
            if f.get_internal_type() == "DateTimeField"
        }
        for model in (Game, Seat, Event, Message, User)
    }

    def value(model, column: str, override: dict[str, str]) -> str:
        if column in override:
            return override[column]
        quoted = connection.ops.quote_name(column)
        if column in times[model]:
            return f"t.{quoted} - {shift}"
        return f"t.{quoted}"

    def values(model, columns: list[str], override: dict[str, str]) -> str:
        return ", ".join(value(model, column, override) for column in columns)

    def names(columns: list[str]) -> str:
        return ", ".join(map(connection.ops.quote_name, columns))

    game_columns = _columns(Game)
    if Event.objects.filter(game_id=template, data__has_key="at").exists():
        raise ValueError("a template with clock events cannot be moved in time")
    with transaction.atomic(), connection.cursor() as cursor:
        override = {
            "title": f"t.title || ' {tag} ' || n",
            "thread_token": HEX,
        }
        cursor.execute(
            f"INSERT INTO {Game._meta.db_table} ({names(game_columns)})"
            f" SELECT {', '.join(value(Game, c, override) for c in game_columns)}"
            f" FROM {Game._meta.db_table} t, generate_series(1, %s) AS n WHERE t.id = %s"
            " RETURNING id",
            [copies, template],
        )
        ids = sorted(row[0] for row in cursor.fetchall())
        seat_columns = _columns(Seat, "game_id")
        override = {
            "email": f"'{tag}' || g.id || '.' || t.position || '@bench.test'",
            "user_id": "NULL",
            "link_nonce": NONCE,
            "pending_link_nonce": "''",
        }
        cursor.execute(
            f"INSERT INTO {Seat._meta.db_table} (game_id, {names(seat_columns)})"
            f" SELECT g.id, {', '.join(value(Seat, c, override) for c in seat_columns)}"
            f" FROM {Seat._meta.db_table} t, unnest(%s::bigint[]) AS g(id) WHERE t.game_id = %s",
            [ids, template],
        )
        # The creator's seat is an account's, as the form makes it: an account of its own
        # for each copy (a copy of the template's, at the seat's address).
        creator = Seat.objects.filter(game_id=template, user__isnull=False).first()
        if creator is not None:
            user_columns = _columns(User, "email")
            cursor.execute(
                f"INSERT INTO {User._meta.db_table} (email, {names(user_columns)})"
                f" SELECT '{tag}' || g.id || '.' || %s || '@bench.test',"
                f" {values(User, user_columns, {'last_login': 'NULL'})}"
                f" FROM {User._meta.db_table} t, unnest(%s::bigint[]) AS g(id) WHERE t.id = %s",
                [creator.position, ids, creator.user_id],
            )
            cursor.execute(
                f"UPDATE {Seat._meta.db_table} s SET user_id = u.id FROM {User._meta.db_table} u"
                " WHERE s.game_id = ANY(%s::bigint[]) AND s.position = %s AND u.email = s.email",
                [ids, creator.position],
            )
            cursor.execute(
                f"UPDATE {Game._meta.db_table} g SET created_by_id = s.user_id"
                f" FROM {Seat._meta.db_table} s WHERE g.id = ANY(%s::bigint[])"
                " AND s.game_id = g.id AND s.position = %s",
                [ids, creator.position],
            )
        # What some invited players chose later (see the module's docstring): picked by the
        # seat's id, so every size has the same share.
        invited = (
            f"FROM {Seat._meta.db_table} s WHERE s.game_id = ANY(%s::bigint[])"
            " AND s.user_id IS NULL AND s.email <> ''"
        )
        cursor.execute(
            f"INSERT INTO {MailPreference._meta.db_table}"
            " (address, digest, stopped_kinds, updated_at)"
            f" SELECT s.email, false, %s::jsonb, now() - {shift} {invited} AND s.id %% 50 = 7",
            [json.dumps([emails.REMINDER]), ids],
        )
        cursor.execute(
            f"INSERT INTO {Suppression._meta.db_table} (address, reason, detail, created_at)"
            " SELECT s.email, CASE WHEN s.id %% 200 = 3 THEN %s ELSE %s END,"
            f" CASE WHEN s.id %% 200 = 3 THEN '' ELSE %s END, now() - {shift}"
            f" {invited} AND s.id %% 100 = 3",
            [Suppression.Reason.UNSUBSCRIBED, Suppression.Reason.BOUNCED, BOUNCE, ids],
        )
        event_columns = _columns(Event, "game_id")
        cursor.execute(
            f"INSERT INTO {Event._meta.db_table} (game_id, {names(event_columns)})"
            f" SELECT g.id, {', '.join(value(Event, c, {}) for c in event_columns)}"
            f" FROM {Event._meta.db_table} t, unnest(%s::bigint[]) AS g(id) WHERE t.game_id = %s",
            [ids, template],
        )
        # The last outbox rows of the template's seats (its last 5 emails: the earlier
        # ones would make the outbox the largest table), as a worker leaves them once sent.
        message_columns = _columns(Message, "game_id", "seat_id")
        override = {
            "to": "s.email",
            "status": f"'{Message.Status.SENT.value}'",
            "sent_at": f"t.created_at - {shift}",
            "attempts": "1",
            "token": HEX,
            "claim": "''",
        }
        cursor.execute(
            f"INSERT INTO {Message._meta.db_table} (game_id, seat_id,"
            f" {names(message_columns)})"
            f" SELECT s.game_id, s.id, {values(Message, message_columns, override)}"
            f" FROM {Message._meta.db_table} t JOIN {Seat._meta.db_table} o ON o.id = t.seat_id"
            f" JOIN {Seat._meta.db_table} s ON s.position = o.position"
            " AND s.game_id = ANY(%s::bigint[]) WHERE t.id IN (SELECT id FROM"
            f" {Message._meta.db_table} WHERE game_id = %s AND seat_id IS NOT NULL"
            " ORDER BY id DESC LIMIT 5)",
            [ids, template],
        )
    return ids


def load(games: int, templates: list[int], tag: str = "bg", report=print) -> None:
    """``games`` copies of the templates, in turn, in batches of 1,000."""
    started = time.monotonic()
    made = 0
    for batch, template in zip(itertools.count(), itertools.cycle(templates)):
        if made >= games:
            break
        count = min(1000, games - made)
        copy_games(template, count, days_ago=0, tag=f"{tag}{batch}-")
        made += count
        if batch % 10 == 9:
            report(f"  {made:,} games copied in {time.monotonic() - started:.0f} s")


def sizes() -> list[tuple[str, str, str]]:
    """The largest tables: name, rows (estimated), total size with indexes."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname, to_char(n_live_tup, 'FM999,999,999,999'),"
            " pg_size_pretty(pg_total_relation_size(relid)) FROM pg_stat_user_tables"
            " ORDER BY pg_total_relation_size(relid) DESC LIMIT 8"
        )
        return cursor.fetchall()
