"""Analyses answer questions over the store by running the SQL files in sql/analysis/."""

from __future__ import annotations

from typing import Any

import duckdb

from nsight_ingest.sqlfiles import read_sql


def run_sql(con: duckdb.DuckDBPyConnection, name: str, **params: Any) -> list[dict[str, Any]]:
    """Run `sql/analysis/<name>.sql` with named parameters; rows as dicts."""
    cursor = con.execute(read_sql(f"analysis/{name}.sql"), params)
    columns = [d[0] for d in cursor.description]
    return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]
