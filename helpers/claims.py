"""A claim on one row and the rows that go with it, written in one statement.

A move is appended only if its game is still at the version the move was decided on: a
conditional UPDATE of the game's row claims it, and the events and the outbox rows they
cause are inserted only if that claim held. Through the ORM that takes a statement for
each table, and a savepoint for each row that may be there already (an email written
before). On PostgreSQL, ``claim_and_insert`` sends all of it as one statement, the inserts
as data-modifying WITH queries that read the claim's RETURNING: one round trip, no
savepoint. Other databases take the same writes through the ORM.

    claimed = claim_and_insert(
        Claim(game, fields=("version", "status"), expected={"version": 157}),
        rows=events,                    # a duplicate raises IntegrityError
        rows_unless_present=messages,   # a duplicate is skipped and keeps no primary key
    )

It is atomic by itself, one verb whatever the database: on PostgreSQL outside a
transaction the one statement needs no BEGIN and COMMIT (two round trips fewer); inside
the caller's transaction, or through the ORM, it joins or opens one. Either way the rows
it inserts get their primary keys, as ``bulk_create`` gives them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import DEFAULT_DB_ALIAS, IntegrityError, connections, transaction
from django.db.models import Model


@dataclass(frozen=True)
class Claim:
    """An UPDATE of ``instance``'s row, writing its ``fields`` (as the instance holds
    them), that holds only if the row's columns still have the ``expected`` values."""

    instance: Model
    fields: Sequence[str]
    expected: Mapping[str, Any]


def claim_and_insert(
    claim: Claim,
    rows: Iterable[Model] = (),
    rows_unless_present: Iterable[Model] = (),
    *,
    using: str = DEFAULT_DB_ALIAS,
) -> bool:
    """Write ``claim``; if it held, insert ``rows`` (new model instances) and those of
    ``rows_unless_present`` that no unique constraint finds written already. Returns
    whether the claim held; if it did not, nothing is written.

    Atomic by itself: a duplicate among ``rows`` raises IntegrityError and writes nothing.
    Inside the caller's transaction it takes a savepoint, so the caller may go on.
    """
    rows, optional = list(rows), list(rows_unless_present)
    connection = connections[using]
    if connection.vendor == "postgresql" and not connection.in_atomic_block:
        return _in_one_statement(connection, claim, rows, optional)
    # Inside the caller's transaction, a savepoint: a duplicate leaves it usable.
    with transaction.atomic(using=using):
        if connection.vendor == "postgresql":
            return _in_one_statement(connection, claim, rows, optional)
        return _through_the_orm(using, claim, rows, optional)


def _through_the_orm(using: str, claim: Claim, rows: list[Model], optional: list[Model]) -> bool:
    instance = claim.instance
    model = type(instance)
    values = {name: getattr(instance, model._meta.get_field(name).attname) for name in claim.fields}
    claimed = (
        model._base_manager.using(using).filter(pk=instance.pk, **claim.expected).update(**values)
    )
    if not claimed:
        return False
    for model, group in _by_model(rows).items():
        model._base_manager.using(using).bulk_create(group)
    for row in optional:
        try:
            with transaction.atomic(using=using):  # a savepoint: a duplicate spoils nothing
                type(row)._base_manager.using(using).bulk_create([row])
        except IntegrityError:
            row.pk = None
    return True


def _in_one_statement(connection, claim: Claim, rows: list[Model], optional: list[Model]) -> bool:
    instance = claim.instance
    model = type(instance)
    meta = model._meta
    fields = [meta.get_field(name) for name in claim.fields]
    params: list[Any] = [
        field.get_db_prep_save(getattr(instance, field.attname), connection) for field in fields
    ]
    params.append(meta.pk.get_db_prep_value(instance.pk, connection))
    nulls = []
    for name, value in claim.expected.items():
        nulls.append(value is None)
        if value is not None:
            params.append(meta.get_field(name).get_db_prep_value(value, connection))
    shape = (model, tuple(claim.fields), tuple(claim.expected), tuple(nulls))
    parts = [_built(connection, _claim_sql, *shape)]
    # Each insert reads the claim: nothing is inserted unless it held. RETURNING gives the
    # new keys in the order of the VALUES, as bulk_create relies on.
    inserts = []  # (CTE name, the rows it inserts)
    for model, group in _by_model(rows).items():
        name = f"inserted_{len(inserts)}"
        parts.append(f"{name} AS ({_insert(connection, model, group, params)})")
        inserts.append((name, group))
    for row in optional:
        # One WITH query for each: a skipped duplicate returns no key, and every other row
        # still gets its own.
        name = f"inserted_{len(inserts)}"
        insert = _insert(connection, type(row), [row], params, "ON CONFLICT DO NOTHING")
        parts.append(f"{name} AS ({insert})")
        inserts.append((name, [row]))
    results = ["(SELECT count(*) FROM claimed)"]
    results += [f"ARRAY(SELECT pk FROM {name})" for name, _group in inserts]
    sql = f"WITH {', '.join(parts)} SELECT {', '.join(results)}"
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        claimed, *keys = cursor.fetchone()
    if not claimed:
        return False
    for (_name, group), new_keys in zip(inserts, keys, strict=True):
        if len(new_keys) == len(group):
            for row, key in zip(group, new_keys, strict=True):
                row.pk = key
                row._state.adding = False
                row._state.db = connection.alias
    return True


def _claim_sql(connection, model, fields, expected, nulls) -> str:
    """The WITH query of a claim: an UPDATE of ``fields`` of one row whose ``expected``
    columns hold the values given (NULL where ``nulls`` says)."""
    quote = connection.ops.quote_name
    meta = model._meta
    sets = []
    for name in fields:
        field = meta.get_field(name)
        sets.append(f"{quote(field.column)} = {_placeholder(field, connection)}")
    conditions = [f"{quote(meta.pk.column)} = %s"]
    for name, null in zip(expected, nulls, strict=True):
        column = quote(meta.get_field(name).column)
        conditions.append(f"{column} IS NULL" if null else f"{column} = %s")
    return (
        f"claimed AS (UPDATE {quote(meta.db_table)} SET {', '.join(sets)}"
        f" WHERE {' AND '.join(conditions)} RETURNING 1)"
    )


def _insert(
    connection, model: type[Model], group: list[Model], params: list[Any], conflict: str = ""
) -> str:
    """An INSERT of ``group`` into ``model``'s table if the claim held, its values added to
    ``params``; it returns the new rows' keys as ``pk``. ``conflict``: its ON CONFLICT
    clause, if any."""
    # New rows: the database numbers them, unless every one has its key already.
    numbered = all(row.pk is not None for row in group)
    fields, into, row_sql, pk = _built(connection, _insert_columns, model, numbered)
    for row in group:
        for field in fields:
            params.append(field.get_db_prep_save(field.pre_save(row, True), connection))
    return (
        f"{into} SELECT * FROM (VALUES {', '.join([row_sql] * len(group))}) AS new"
        f" WHERE EXISTS (SELECT FROM claimed) {conflict} RETURNING {pk} AS pk"
    )


def _insert_columns(connection, model: type[Model], numbered: bool) -> tuple[list, str, str, str]:
    """The fields an INSERT into ``model``'s table writes, its INSERT INTO clause, a row of
    placeholders and the quoted key column."""
    quote = connection.ops.quote_name
    meta = model._meta
    fields = [field for field in meta.concrete_fields if numbered or field is not meta.pk]
    columns = ", ".join(quote(field.column) for field in fields)
    row_sql = "(" + ", ".join(_placeholder(field, connection) for field in fields) + ")"
    return fields, f"INSERT INTO {quote(meta.db_table)} ({columns})", row_sql, quote(meta.pk.column)


# SQL built once per process, database and shape: Django works out a column's type anew
# each time it is asked, which took longer than the rest of building the statement.
_BUILT: dict[tuple, Any] = {}


def _built(connection, build, *shape):
    key = (connection.alias, build.__name__, *shape)
    if key not in _BUILT:
        _BUILT[key] = build(connection, *shape)
    return _BUILT[key]


def _placeholder(field, connection) -> str:
    # Typed, so that PostgreSQL reads a NULL or a string as the column's type in VALUES.
    return f"CAST(%s AS {field.db_type(connection)})"


def _by_model(rows: list[Model]) -> dict[type[Model], list[Model]]:
    groups: dict[type[Model], list[Model]] = {}
    for row in rows:
        groups.setdefault(type(row), []).append(row)
    return groups
