"""Analyses answer questions over the store by running the SQL files in sql/analysis/."""

from __future__ import annotations

from typing import Any

import duckdb

from nsight_ingest.rules import RuleSet
from nsight_ingest.sqlfiles import read_sql
from nsight_ingest.store import Ingested


def dict_rows(cursor: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """The rows of an executed query as dicts keyed by column name."""
    columns = [d[0] for d in cursor.description]
    return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]


def run_sql(con: duckdb.DuckDBPyConnection, name: str, **params: Any) -> list[dict[str, Any]]:
    """Run `sql/analysis/<name>.sql` with named parameters; rows as dicts."""
    return dict_rows(con.execute(read_sql(f"analysis/{name}.sql"), params))


def run_script(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """Run `sql/analysis/<name>.sql` for its side effect (it creates temp tables)."""
    con.execute(read_sql(f"analysis/{name}.sql"))


def inputs_block(files: list[tuple[Ingested, str]]) -> list[dict[str, Any]]:
    """`{path, role, sha256, rows}` per (input file, role), and content_sha256 for gzip."""
    return [
        {"path": i.path, "role": role, "sha256": i.sha256, "rows": i.rows}
        | ({"content_sha256": i.content_sha256} if i.content_sha256 else {})
        for i, role in files
    ]


def rule_set_block(rule_set: RuleSet) -> dict[str, Any]:
    """Which rules decided the classes: folder, version hash, files."""
    return {"path": str(rule_set.directory), "version": rule_set.version,
            "files": [rule.path.name for rule in rule_set.files]}


def percentiles(row: dict[str, Any] | None) -> dict[str, float | None]:
    """The p50/p90/p99/max columns of a row as a JSON block (None when there were no values)."""
    row = row or {}
    return {key: None if row.get(key) is None else float(row[key]) for key in ("p50_ns", "p90_ns", "p99_ns", "max_ns")}
