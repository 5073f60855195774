"""Readers turn one export file into normalized rows (as DuckDB SELECTs); they never analyse."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Load:
    """What the store runs, in one transaction, to load a file: setup statements, then one INSERT per table.

    `setup` holds (sql, rows) pairs, run with executemany over rows (or once when rows is empty), e.g. a temp
    table describing the file's columns;
    `inserts` holds (table, select_sql); the first table's new rows are the file's row count.
    """

    report_type: str
    inserts: tuple[tuple[str, str], ...]
    setup: tuple[tuple[str, list[list]], ...] = field(default=())
    temporary: Path | None = None  # a copy of the table the SELECTs read, to delete after loading
    frames: tuple[tuple[str, object], ...] = field(default=())  # (name, DataFrame) the SELECTs read
    nsys_version: str | None = None


def load(path: Path, report_type: str) -> Load:
    """The Load for `path` read as `report_type` (an nsys report or an ncu page; CSV or nsys SQLite export)."""
    from nsight_ingest.readers.source import is_sqlite

    if is_sqlite(path):
        from dataclasses import replace

        from nsight_ingest.readers import sqlite

        return replace(sqlite.load(path, report_type), nsys_version=sqlite.nsys_version(path))
    if report_type.startswith("ncu_"):
        from nsight_ingest.readers import ncu

        return ncu.load(path, report_type)
    from nsight_ingest.readers import nsys

    return nsys.load(path, report_type)
