"""Queries whose SQL the ORM builds once per process, for the hottest reads.

For a few rows through an index, Django building the SQL costs more than the database's
answer. A ``CompiledQuery`` builds a ``values_list()`` query twice with probe integers to
find each parameter's placeholders, then reruns that SQL with new values.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import QuerySet

# Within every integer field's range: Django builds no SQL for a value a column cannot hold.
_PROBE = 10_007


@dataclass(frozen=True)
class _Compiled:
    sql: str
    params: tuple[Any, ...]
    slots: tuple[tuple[int, str], ...]  # (placeholder's index, parameter's name)
    converters: tuple[tuple[int, tuple[Callable, ...], Any], ...]  # (column, functions, expr)


class CompiledQuery:
    """A ``values_list()`` queryset built once, run with new integer values."""

    def __init__(self, build: Callable[..., QuerySet], using: str = DEFAULT_DB_ALIAS) -> None:
        """``build(**values)`` returns the queryset for those integer values."""
        self.build = build
        self.using = using
        self.compiled: dict[tuple[str, ...], _Compiled] = {}
        self.lock = threading.Lock()

    def rows(self, **values: int) -> list[tuple]:
        """The rows of the query for ``values``, converted as the queryset would give them."""
        names = tuple(sorted(values))
        for name in names:
            value = values[name]
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"{name} must be an integer, not {value!r}")
        compiled = self.compiled.get(names)
        if compiled is None:
            with self.lock:
                compiled = self.compiled.get(names) or self.compile(names)
                self.compiled[names] = compiled
        params = list(compiled.params)
        for index, name in compiled.slots:
            params[index] = values[name]
        connection = connections[self.using]
        with connection.cursor() as cursor:
            cursor.execute(compiled.sql, params)
            rows = cursor.fetchall()
        if not compiled.converters:
            return rows
        converted = []
        for row in rows:
            row = list(row)
            for column, functions, expression in compiled.converters:
                value = row[column]
                for function in functions:
                    value = function(value, expression, connection)
                row[column] = value
            converted.append(tuple(row))
        return converted

    def compile(self, names: tuple[str, ...]) -> _Compiled:
        """Find each parameter's placeholders where two builds with probe values differ."""
        first = {name: _PROBE + 2 * n for n, name in enumerate(names)}
        second = {name: value + 1 for name, value in first.items()}
        queryset = self.build(**first)
        compiler = queryset.query.get_compiler(using=self.using)
        sql, params = compiler.as_sql()
        other = self.build(**second).query.get_compiler(using=self.using)
        other_sql, other_params = other.as_sql()
        if sql != other_sql or len(params) != len(other_params):
            raise ValueError("the query's SQL depends on its parameters' values")
        by_value = {value: name for name, value in first.items()}
        slots = []
        for index, (a, b) in enumerate(zip(params, other_params, strict=True)):
            if a == b:
                continue
            if by_value.get(a) is None or second[by_value[a]] != b:
                raise ValueError(f"placeholder {index} is not one parameter's value")
            slots.append((index, by_value[a]))
        missing = set(names) - {name for _, name in slots}
        if missing:
            raise ValueError(f"the query does not use {sorted(missing)}")
        expressions = [expression for expression, _sql, _alias in compiler.select]
        converters = tuple(
            (column, tuple(functions), expression)
            for column, (functions, expression) in compiler.get_converters(expressions).items()
        )
        return _Compiled(sql, tuple(params), tuple(slots), converters)
