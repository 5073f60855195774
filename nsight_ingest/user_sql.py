"""SQL the user supplies (rule files, `query`): exactly one reading statement, run on a DuckDB connection that
reaches nothing but what it was given: no files, no other databases, no extensions, no Python variables, and a
configuration that cannot be changed back."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING

import duckdb

from nsight_ingest.errors import InputError, first_line

if TYPE_CHECKING:
    import pyarrow as pa

SELECT = frozenset({duckdb.StatementType.SELECT})  # also DESCRIBE, SHOW, SUMMARIZE, FROM-first and VALUES
READING = SELECT | {duckdb.StatementType.EXPLAIN}  # EXPLAIN [ANALYZE] of a SELECT
_EXPLAINED = re.compile(r"^\s*EXPLAIN\s+(?:ANALY[SZ]E\s+)?(?P<statement>.*)$", re.I | re.S)


@cache
def parser() -> tuple[duckdb.DuckDBPyConnection, threading.Lock]:
    """One empty in-memory DuckDB that parses statements and sizes (opening one costs 20-40 ms, per rule file or
    size), with the lock that keeps threads (a Dask worker's) from sharing it at once."""
    return duckdb.connect(config={"threads": 1}), threading.Lock()  # it parses: no thread pool to keep


def one_statement(sql: str, what: str, allowed: Iterable[duckdb.StatementType] = SELECT) -> str:
    """The text of `sql`'s only statement; refused unless it parses as exactly one statement of an `allowed`
    type (`what` names the SQL in the message)."""
    con, parsing = parser()
    try:
        with parsing:
            statements = con.extract_statements(sql)
    except duckdb.Error as exc:
        raise InputError(f"{what}: SQL does not parse: {first_line(exc)}") from None
    if len(statements) != 1:
        raise InputError(f"{what}: must be exactly one SQL statement, found {len(statements)}")
    kind, text = statements[0].type, statements[0].query
    if kind not in allowed:
        names = "/".join(sorted(k.name for k in allowed))
        raise InputError(f"{what}: only a {names} statement may run here, not {kind.name}")
    if kind == duckdb.StatementType.EXPLAIN:  # EXPLAIN ANALYZE runs the statement it explains
        explained = _EXPLAINED.match(text)
        if not explained:
            raise InputError(f"{what}: EXPLAIN must come first")
        one_statement(explained["statement"], what, SELECT)
    return text


def lock(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """Cut `con` off from files, other databases, extensions and the caller's Python variables, for good."""
    con.execute("SET python_enable_replacements = false")
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
    return con


def identifiers(sql: str) -> set[str]:
    """The identifiers a statement holds, unquoted and in lower case (comments and strings do not count)."""
    tokens = duckdb.tokenize(sql)
    ends = [start for start, _ in tokens[1:]] + [len(sql)]
    return {sql[start:end].strip().strip('"').lower() for (start, kind), end in zip(tokens, ends, strict=True)
            if kind == duckdb.token_type.identifier}


def rows_within(con: duckdb.DuckDBPyConnection, sql: str, seconds: float) -> pa.Table:
    """The rows of `sql` on `con`, interrupted after `seconds` (DuckDB has no statement timeout: a recursive CTE
    that never ends would hang the command); an interrupted statement raises duckdb.InterruptException."""
    watchdog = threading.Timer(seconds, con.interrupt)
    watchdog.start()
    try:
        return con.sql(sql).to_arrow_table()
    finally:
        watchdog.cancel()


def sandbox(relations: dict[str, pa.Table], memory_limit: str) -> duckdb.DuckDBPyConnection:
    """A new in-memory DuckDB holding only `relations`, as read-only views of those names (a statement cannot
    change them for the next), within `memory_limit` and with no spill folder (the one folder DuckDB would still let
    it read), locked."""
    con = duckdb.connect(":memory:", config={"temp_directory": "", "memory_limit": memory_limit})
    for name, rows in relations.items():
        con.register(name, rows)
    return lock(con)
