"""Nsight Compute `--csv --page raw` (wide, with a units row) and `--page details` (long) exports.

Raw: one row per profiled launch, one column per metric, a units row under the header, quoted values with
thousands separators, text values; the profiled program's stdout and `==PROF==` lines may surround the table.
Details: one row per (launch, metric) with human metric names and per-row units; rule rows carry free text and
metric rows are shorter than the header.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from pathlib import Path

from nsight_ingest.errors import InputError
from nsight_ingest.readers.rows import Insert, Load
from nsight_ingest.readers.source import (
    CsvTable,
    head_lines,
    locate_table,
    read_csv_call,
    report_types,
    table_copy,
)
from nsight_ingest.sqlfiles import sql_string

IDENTITY = {
    "ID": "result_id", "Process ID": "process_id", "Process Name": "process_name", "Host Name": "host_name",
    "Kernel Name": "kernel_name", "Context": "context_id", "Stream": "stream_id", "Block Size": "block_size",
    "Grid Size": "grid_size", "Device": "device", "CC": "compute_capability",
}
DETAILS = {
    "Section Name": "section", "Metric Name": "metric", "Metric Unit": "unit", "Metric Value": "value_text",
    "Rule Name": "rule_name", "Rule Type": "rule_type", "Rule Description": "rule_description",
    "Estimated Speedup Type": "speedup_type", "Estimated Speedup": "speedup",
}
HEADER_TABLE = "CREATE OR REPLACE TEMP TABLE ncu_header (col VARCHAR, metric VARCHAR, unit VARCHAR)"


def _varchar_columns(names: list[str]) -> list[str]:
    """read_csv column items that read every cell as text (values are parsed in SQL, separators and all)."""
    return [f"{sql_string(name)}: 'VARCHAR'" for name in names]


def _present_or_null(names: list[str], wanted: Iterable[str]) -> str:
    """A select list of the `wanted` columns: those among the file's `names`, NULL for the others."""
    return ", ".join(c if c in names else f"NULL AS {c}" for c in wanted)


def _units_row(table: CsvTable) -> list[str]:
    lines, _ = head_lines(table.path, limit=table.header_line + 2)
    if len(lines) < table.header_line + 2:
        raise InputError(f"{table.path}: ncu raw page has a header but no units row and no data")
    units = next(csv.reader([lines[table.header_line + 1]]))
    if len(units) != len(table.header) or units[0] != "":
        raise InputError(f"{table.path}: ncu raw page without its units row (the line after the header must hold "
                         "the units; export with --page raw and --csv)")
    return units


def _column_names(table: CsvTable, known: dict[str, str], other: str) -> tuple[list[str], tuple[str, ...]]:
    """A reader name per header cell (`known` ones by name, the rest `{other}_{index}`), with notes. A header that
    names a column twice keeps the first: the later ones are read as `dup_{index}` and used nowhere."""
    names, seen, repeated = [], set(), {}
    for index, cell in enumerate(table.header):
        if cell.raw in seen:
            names.append(f"dup_{index}")
            repeated[cell.raw] = repeated.get(cell.raw, 1) + 1
        else:
            names.append(known.get(cell.raw, f"{other}_{index}"))
        seen.add(cell.raw)
    return names, tuple(f"{table.path}: column {raw!r} appears {count} times; the first is used"
                        for raw, count in repeated.items())


def _raw(table: CsvTable) -> Load:
    units = _units_row(table)
    names, notes = _column_names(table, IDENTITY, "m")
    missing = [raw for raw, name in IDENTITY.items() if name in ("result_id", "kernel_name") and name not in names]
    if missing:
        raise InputError(f"{table.path}: ncu raw page is missing column(s): {', '.join(missing)}")
    copy = table_copy(table, always_scan=True)
    source = read_csv_call(copy.path, copy.compressed, skip=copy.header_line + 2, header=False,
                           columns=_varchar_columns(names))
    header_rows = [[name, cell.raw, unit] for name, cell, unit in zip(names, table.header, units, strict=True)
                   if name.startswith("m_")]
    return Load(
        "ncu_raw",
        (Insert("ncu_raw", "ncu_results", "readers/ncu_results.sql",
                f"SELECT {_present_or_null(names, IDENTITY.values())} FROM {source}"),
         Insert("ncu_raw", "ncu_metrics", "readers/ncu_raw_metrics.sql", f"SELECT * FROM {source}")),
        setup=((HEADER_TABLE, []), ("INSERT INTO ncu_header VALUES (?, ?, ?)", header_rows)),
        temporary=copy.temporary, lines_before=copy.lines_before, notes=notes,
    )


def _details(table: CsvTable) -> Load:
    known = IDENTITY | DETAILS
    names, notes = _column_names(table, known, "extra")
    missing = [raw for raw, name in known.items() if name not in names and name in
               ("result_id", "kernel_name", "metric", "unit", "value_text")]
    if missing:
        raise InputError(f"{table.path}: ncu details page is missing column(s): {', '.join(missing)}")
    copy = table_copy(table, always_scan=True)
    reader = read_csv_call(copy.path, copy.compressed, skip=copy.header_line + 1, header=False,
                           columns=_varchar_columns(names), null_padding=True)
    source = f"SELECT {_present_or_null(names, known.values())} FROM {reader}"
    return Load(
        "ncu_details",
        (Insert("ncu_details", "ncu_results", "readers/ncu_results.sql", source),
         Insert("ncu_details", "ncu_metrics", "readers/ncu_details_metrics.sql", source),
         Insert("ncu_details", "ncu_rules", "readers/ncu_details_rules.sql", source)),
        temporary=copy.temporary, lines_before=copy.lines_before, notes=notes,
    )


def detect(path: Path) -> str:
    """Which ncu page a file holds: 'ncu_raw' or 'ncu_details'."""
    found = report_types(path)
    for page in ("ncu_details", "ncu_raw"):
        if page in found:
            return page
    return locate_table(path, "ncu_raw").report_type  # raises, naming what the file is instead


def load(path: Path, report_type: str) -> Load:
    """Find the ncu table in `path` and prepare the INSERTs of its launches, metrics and rules."""
    table = locate_table(path, report_type)
    return _raw(table) if report_type == "ncu_raw" else _details(table)
