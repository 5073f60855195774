"""SQL modules tested alone on inline rows (like Perfetto's diff tests or dbt unit tests).

A module's requirements are relations. A test creates them itself from inline VALUES (`given`), which also marks
the module that would build each one, and that module's own requirements, as built: the loader then runs only the
module under test, on exactly the rows the test wrote down.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from nsight_ingest import sqlcatalog, sqlmodules, store

# The values of a capture's scope: gpu trace 1, kern_exec trace 2, the whole capture, no API trace, no summaries,
# no ncu.
CAPTURE_VALUES = {"gpu_trace": 1, "kern_exec_trace": 2, "api_trace": None, "api_summary": None, "kernel_summary": None,
                  "ncu_traces": []}


def pass_columns(names: Sequence[str], rows: Sequence[tuple]) -> dict:
    """A pass's input columns (numpy arrays, masked where NULL, as DuckDB's fetchnumpy gives them) from rows of
    values in `names` order (None: NULL)."""
    import numpy as np

    columns = {}
    for number, name in enumerate(names):
        values = [row[number] for row in rows]
        columns[name] = np.ma.masked_array(np.array([0 if v is None else v for v in values]),
                                           mask=[value is None for value in values])
    return columns


def literal(value: Any) -> str:
    """A Python value as a DuckDB SQL literal."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


def values_sql(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """`SELECT * FROM (VALUES ...) v(columns)` for these rows (each a tuple in column order)."""
    for row in rows:
        assert len(row) == len(columns), f"row {row!r} does not have the {len(columns)} columns {columns}"
    tuples = ",\n    ".join("(" + ", ".join(literal(v) for v in row) + ")" for row in rows)
    return f"SELECT * FROM (VALUES\n    {tuples}) v({', '.join(columns)})"


def given_table(con, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """CREATE TEMP TABLE `table` holding `rows`. `columns` are names, or 'name TYPE' entries to cast a column
    (e.g. 'context_key UBIGINT'); a column without a type whose values are all NULL is a BIGINT."""
    names = [c.split()[0] for c in columns]
    types = {c.split()[0]: c.split(None, 1)[1] for c in columns if " " in c.strip()}
    if not rows:  # no values to take the types from
        typed = ", ".join(f"{n} {types.get(n, 'BIGINT')}" for n in names)
        con.execute(f"CREATE OR REPLACE TEMP TABLE {table} ({typed})")
        return
    con.execute(f"CREATE OR REPLACE TEMP TABLE {table} AS {values_sql(names, rows)}")
    for name, kind in con.execute(f"SELECT column_name, column_type FROM (DESCRIBE {table})").fetchall():
        if name in types or kind == '"NULL"':
            con.execute(f"ALTER TABLE {table} ALTER {name} TYPE {types.get(name, 'BIGINT')}")


def store_rows(con, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """INSERT these rows into the store table `table`, BY NAME: only `columns` (the others take their default)."""
    con.execute(f"INSERT INTO {table} BY NAME {values_sql(columns, rows)}")


def given(scope: sqlmodules.Scope, name: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """The relation module `name` creates, as a TEMP TABLE of `rows`, and `name` (with its requirements) marked
    built in `scope`. The table has exactly the columns `name`'s header documents, in order: those of `columns`
    (names the header documents, optionally with a type: 'context_key UBIGINT') from the rows, the others NULL."""
    found = sqlcatalog.module(name)
    documented = [c.name for c in found.columns]
    typed = {c.split()[0]: c for c in columns}
    unknown = set(typed) - set(documented)
    assert not unknown, f"{name} documents no column(s) {sorted(unknown)}; it documents {documented}"
    given_table(scope.con, "given_rows", list(typed.values()), rows)
    select = ", ".join(c if c in typed else f"NULL::BIGINT AS {c}" for c in documented)
    scope.con.execute(f"CREATE OR REPLACE TEMP TABLE {found.creates} AS SELECT {select} FROM given_rows")
    scope.con.execute("DROP TABLE given_rows")
    scope.built.update(done for done, _ in sqlcatalog.order([name], scope.substitutes))


@pytest.fixture
def scope() -> sqlmodules.Scope:
    """A capture scope (CAPTURE_VALUES) on a fresh temporary store."""
    return sqlmodules.Scope(store.connect(), dict(CAPTURE_VALUES))

