"""SQL the user supplies (rule files, `query`): exactly one reading statement, run on a DuckDB connection that
reaches nothing but what it was given: no files, no other databases, no extensions, no Python variables, and a
configuration that cannot be changed back."""

from __future__ import annotations

from collections.abc import Iterable

import duckdb
import pyarrow as pa

from nsight_ingest.errors import InputError

SELECT = frozenset({duckdb.StatementType.SELECT})  # also DESCRIBE, SHOW, SUMMARIZE, FROM-first and VALUES
READING = SELECT | {duckdb.StatementType.EXPLAIN}


def one_statement(sql: str, what: str, allowed: Iterable[duckdb.StatementType] = SELECT) -> str:
    """The text of `sql`'s only statement; refused unless it parses as exactly one statement of an `allowed`
    type (`what` names the SQL in the message)."""
    try:
        statements = duckdb.connect().extract_statements(sql)
    except duckdb.Error as exc:
        raise InputError(f"{what}: SQL does not parse: {first_line(exc)}") from None
    if len(statements) != 1:
        raise InputError(f"{what}: must be exactly one SQL statement, found {len(statements)}")
    kind = statements[0].type
    if kind not in allowed:
        names = "/".join(sorted(k.name for k in allowed))
        raise InputError(f"{what}: only a {names} statement may run here, not {kind.name}")
    return statements[0].query


def lock(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """Cut `con` off from files, other databases, extensions and the caller's Python variables, for good."""
    con.execute("SET python_enable_replacements = false")
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
    return con


def sandbox(relations: dict[str, pa.Table]) -> duckdb.DuckDBPyConnection:
    """A new in-memory DuckDB holding only `relations` (as tables of those names), locked."""
    con = duckdb.connect(":memory:")
    for name, rows in relations.items():
        con.register("incoming_rows", rows)
        con.execute(f'CREATE TABLE "{name}" AS SELECT * FROM incoming_rows')
        con.unregister("incoming_rows")
    return lock(con)


def first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
