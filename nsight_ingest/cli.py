"""The `nsight-ingest` command line: parse options, call the pipeline, print. No analysis logic here."""

from __future__ import annotations

import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from nsight_ingest.errors import InputError

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, no_args_is_help=True,
                  help="Turn Nsight Systems / Nsight Compute CSV exports into answers.")


class Format(StrEnum):
    json = "json"
    table = "table"


class QueryFormat(StrEnum):
    table = "table"
    csv = "csv"
    json = "json"


def _warn(message: str) -> None:
    print(f"nsight-ingest: {message}", file=sys.stderr)


@app.command()
def classify(
    gpu_trace: Annotated[str, typer.Argument(help="nsys cuda_gpu_trace CSV (.csv or .csv.gz)")],
    kern_exec: Annotated[
        str | None, typer.Option("--kern-exec", help="cuda_kern_exec_trace CSV; default: the sibling file")
    ] = None,
    rules: Annotated[
        Path | None, typer.Option("--rules", help="folder of rule .sql files replacing the defaults")
    ] = None,
    db: Annotated[str | None, typer.Option("--db", help="persist the store to this DuckDB file")] = None,
    fmt: Annotated[Format, typer.Option("--format", help="output format")] = Format.json,
) -> None:
    """Where the kernel time goes, by component, with launch gaps and CPU-GPU launch overlap."""
    from nsight_ingest import report, store
    from nsight_ingest.analysis import classify as analysis
    from nsight_ingest.readers.source import sibling
    from nsight_ingest.rules import load_rule_set

    rule_set = load_rule_set(rules)
    found = kern_exec or sibling(gpu_trace, "cuda_kern_exec_trace")
    con = store.connect(db)
    capture = store.ingest_capture(con, gpu_trace, found)
    if found is None:
        _warn(f"no sibling cuda_kern_exec_trace for {gpu_trace}: cpu_gpu_overlap is null")
    result = analysis.summarize(con, capture, rule_set)
    if fmt is Format.json:
        print(report.to_json(result))
    else:
        report.print_classify(result)


@app.command()
def query(
    sql: Annotated[str, typer.Argument(help="SQL to run against the store")],
    db: Annotated[str, typer.Option("--db", help="DuckDB store written by --db of another command")],
    fmt: Annotated[QueryFormat, typer.Option("--format", help="output format")] = QueryFormat.table,
) -> None:
    """Run your own SQL on a persisted store (read-only)."""
    import duckdb

    from nsight_ingest import report, store

    if not Path(db).is_file():
        raise InputError(f"{db}: no such store")
    con = store.connect(db, read_only=True)
    try:
        cursor = con.execute(sql)
    except duckdb.Error as exc:
        raise InputError(f"query failed: {str(exc).splitlines()[0]}") from None
    columns = [d[0] for d in cursor.description] if cursor.description else []
    rows = cursor.fetchall() if columns else []
    if fmt is QueryFormat.table:
        report.print_rows(columns, rows)
    elif fmt is QueryFormat.csv:
        import csv

        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(rows)
    else:
        print(report.to_json([dict(zip(columns, row, strict=True)) for row in rows]))


def main() -> None:
    """Console entry point: one-line errors with exit code 2 for bad input, never a traceback."""
    try:
        app()  # standalone: typer reports its own usage errors (exit 2) and exits
    except InputError as exc:
        _warn(f"error: {exc}")
        sys.exit(2)
    except Exception as exc:
        if os.environ.get("NSIGHT_INGEST_DEBUG"):
            raise
        first = str(exc).splitlines()[0] if str(exc) else ""
        _warn(f"internal error: {type(exc).__name__}: {first} (set NSIGHT_INGEST_DEBUG=1 for a traceback)")
        sys.exit(3)
