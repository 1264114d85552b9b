"""A conditional UPDATE of one row and the inserts that go with it, as one atomic write.

On PostgreSQL it is one statement (the inserts are WITH queries reading the claim's
RETURNING), so a move costs one round trip; other databases use the ORM. Either way
each inserted row gets its key and a ``post_save``, so receivers need not know who wrote it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import DEFAULT_DB_ALIAS, IntegrityError, connections, transaction
from django.db.models import Model
from django.db.models.signals import post_save


@dataclass(frozen=True)
class Claim:
    """An UPDATE of ``instance``'s ``fields`` that holds only if the row still has ``expected``."""

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
    """Write ``claim``; if it held, insert ``rows`` and the new ones of
    ``rows_unless_present``. Return whether it held.

    A duplicate among ``rows`` raises IntegrityError and writes nothing.
    """
    rows, optional = list(rows), list(rows_unless_present)
    connection = connections[using]
    if connection.vendor == "postgresql" and not connection.in_atomic_block:
        claimed = _in_one_statement(connection, claim, rows, optional)
    else:
        # Inside the caller's transaction, a savepoint: a duplicate leaves it usable.
        with transaction.atomic(using=using):
            if connection.vendor == "postgresql":
                claimed = _in_one_statement(connection, claim, rows, optional)
            else:
                claimed = _through_the_orm(using, claim, rows, optional)
    if claimed:
        for row in [*rows, *optional]:
            if row.pk is not None:  # a skipped duplicate has none
                post_save.send(
                    sender=type(row),
                    instance=row,
                    created=True,
                    update_fields=None,
                    raw=False,
                    using=using,
                )
    return claimed


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
    # RETURNING gives the new keys in the order of the VALUES, as bulk_create relies on.
    inserts = []  # (CTE name, the rows it inserts)
    for model, group in _by_model(rows).items():
        name = f"inserted_{len(inserts)}"
        parts.append(f"{name} AS ({_insert(connection, model, group, params)})")
        inserts.append((name, group))
    for row in optional:
        # One WITH query each, so a skipped duplicate does not shift the others' keys.
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
    """The WITH query of a claim (``nulls``: which expected values are NULL)."""
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
    """An INSERT of ``group`` if the claim held, its values added to ``params``."""
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
    """The fields, INSERT INTO clause, row of placeholders and key column for ``model``."""
    quote = connection.ops.quote_name
    meta = model._meta
    fields = [field for field in meta.concrete_fields if numbered or field is not meta.pk]
    columns = ", ".join(quote(field.column) for field in fields)
    row_sql = "(" + ", ".join(_placeholder(field, connection) for field in fields) + ")"
    return fields, f"INSERT INTO {quote(meta.db_table)} ({columns})", row_sql, quote(meta.pk.column)


# SQL built once per shape: Django works out a column's type anew each time it is asked.
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
