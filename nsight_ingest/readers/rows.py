"""What a reader gives: the INSERTs of one load (a SELECT per table), and what staging an export found out."""


from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from nsight_ingest.sqlfiles import read_sql

READER_SOURCE = "reader_source"  # the relation every reader SQL file reads its input as


@dataclass(frozen=True)
class Insert:
    """One INSERT of a load: `table`'s rows of the report `report_type`, given by the reader SQL file `reader`
    (`readers/cuda_gpu_trace.sql`) over `source`, the query whose rows the reader reads as `reader_source`
    (DuckDB's CSV reader of the file with its columns typed and in base units, or an export's mapping)."""

    report_type: str
    table: str
    reader: str
    source: str

    @property
    def select_sql(self) -> str:
        """The SELECT the store runs: the reader over its source, which it reads by name (each closing parenthesis on
        a line of its own: a trailing comment in either cannot swallow it)."""
        return (f"WITH {READER_SOURCE} AS NOT MATERIALIZED (\n{self.source}\n)\n"
                f"SELECT * FROM (\n{read_sql(self.reader)}\n)")


@dataclass(frozen=True)
class Staged:
    """What staging an export found out: the nsys version it names, and recoveries worth a warning."""

    nsys_version: str | None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Load:
    """What the store runs to load an input: staging (outside the transaction), then in one transaction the setup
    statements and one INSERT per table.

    `report_type` is the input's own report (an export's: cuda_gpu_trace); the rows of each report type are those
    of its first insert, and the input's rows those of `report_type`. `setup` holds (sql, rows) pairs, run with
    executemany over rows (or once when rows is empty), e.g. a temp table describing the file's columns.
    """

    report_type: str
    inserts: tuple[Insert, ...]
    setup: tuple[tuple[str, list[list]], ...] = field(default=())
    temporary: Path | None = None  # a copy of the table the SELECTs read, to delete after loading
    lines_before: int = 0  # lines of the input before that copy's first (added to a line an error names)
    notes: tuple[str, ...] = ()  # what the reader recovered from (stored with the trace, warned about on every use)
    # puts an export's tables in reach; true: the store keeps every column (store.DETAIL_COLUMNS too)
    stage: Callable[[duckdb.DuckDBPyConnection, bool], Staged] | None = None
    unstage: Callable[[duckdb.DuckDBPyConnection], None] | None = None

    @property
    def report_types(self) -> tuple[str, ...]:
        """The reports this load fills, in order."""
        return tuple(dict.fromkeys(insert.report_type for insert in self.inserts))
