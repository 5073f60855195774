"""Open an export (plain or gzip), find its CSV header among console lines, and hash its bytes."""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import re
import zlib
from dataclasses import dataclass
from pathlib import Path

from nsight_ingest.errors import InputError

GZIP_MAGIC = b"\x1f\x8b"
SQLITE_MAGIC = b"SQLite format 3\x00"
HEAD_LINES = 400
_UNIT = re.compile(r"^(?P<base>.*?)\s*\((?P<unit>[^()]*)\)$")

# Columns that identify each report; the first whose columns all appear in a header wins.
REPORT_SIGNATURES: tuple[tuple[str, frozenset[str]], ...] = (
    ("cuda_gpu_trace", frozenset({"Start", "Duration", "CorrId", "GrdX", "Strm", "Name"})),
    ("cuda_kern_exec_trace", frozenset({"API Start", "API Dur", "Kernel Start", "Kernel Dur", "Kernel Name"})),
    ("nvtx_pushpop_trace", frozenset({"Start", "End", "Duration", "DurChild", "Name"})),
    ("cuda_api_trace", frozenset({"Start", "Duration", "Name", "Result", "CorrID"})),
    ("cuda_gpu_kern_sum", frozenset({"Time", "Total Time", "Instances", "Name"})),
    ("cuda_api_sum", frozenset({"Time", "Total Time", "Num Calls", "Name"})),
    ("ncu_details", frozenset({"ID", "Kernel Name", "Section Name", "Metric Name", "Metric Value"})),
    ("ncu_raw", frozenset({"ID", "Kernel Name", "Grid Size", "Block Size"})),
)


@dataclass(frozen=True)
class Header:
    """One CSV header cell split into its base name and unit: `Start (ns)` -> (`Start`, `ns`)."""

    raw: str
    base: str
    unit: str | None


@dataclass(frozen=True)
class CsvTable:
    """Where a report's table starts inside a file and what its header says."""

    path: Path
    report_type: str
    header_line: int
    header: tuple[Header, ...]
    compressed: bool


def split_header(cell: str) -> Header:
    """Split `Name (unit)` into its parts; cells without a unit keep unit None."""
    match = _UNIT.match(cell.strip())
    if match:
        return Header(cell, match["base"].strip(), match["unit"].strip())
    return Header(cell, cell.strip(), None)


def report_type_of(cells: list[str]) -> str | None:
    """Which known report a header row belongs to, or None."""
    bases = {split_header(c).base for c in cells}
    for name, signature in REPORT_SIGNATURES:
        if signature <= bases:
            return name
    return None


def _check_path(path: Path) -> None:
    if not path.exists():
        raise InputError(f"{path}: no such file")
    if path.is_dir():
        raise InputError(f"{path}: is a directory, expected a file")
    if path.stat().st_size == 0:
        raise InputError(f"{path}: file is empty (0 bytes)")


def is_gzip(path: Path) -> bool:
    """True when the file starts with the gzip magic bytes, whatever its name."""
    with path.open("rb") as fh:
        return fh.read(2) == GZIP_MAGIC


def head_lines(path: Path, limit: int = HEAD_LINES) -> tuple[list[str], bool]:
    """First `limit` text lines of a plain or gzip file, and whether it was compressed."""
    _check_path(path)
    compressed = is_gzip(path)
    with path.open("rb") as fh:
        if fh.read(16) == SQLITE_MAGIC:
            raise InputError(f"{path}: is an nsys SQLite export, not a CSV report")
    opener = gzip.open if compressed else open
    lines: list[str] = []
    try:
        with opener(path, "rb") as raw, io.TextIOWrapper(raw, encoding="utf-8", errors="replace", newline="") as text:
            for line in text:
                lines.append(line)
                if len(lines) >= limit:
                    break
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(f"{path}: corrupted gzip file ({exc})") from None
    if not lines or not any(line.strip() for line in lines):
        raise InputError(f"{path}: file is empty" + (" after decompression" if compressed else ""))
    return lines, compressed


def locate_table(path: Path, expected: str) -> CsvTable:
    """Find the header of the `expected` report, skipping console lines before it."""
    lines, compressed = head_lines(path)
    found: list[tuple[int, str, list[str]]] = []
    for index, line in enumerate(lines):
        if "," not in line:
            continue
        cells = next(csv.reader([line.lstrip("\ufeff")]), [])
        kind = report_type_of(cells)
        if kind:
            found.append((index, kind, cells))
    for index, kind, cells in found:
        if kind == expected:
            return CsvTable(path, kind, index, tuple(split_header(c) for c in cells), compressed)
    if found:
        kinds = ", ".join(sorted({kind for _, kind, _ in found}))
        raise InputError(f"{path}: this is a {kinds} report, expected {expected}")
    first = next((line.strip() for line in lines if line.strip()), "")
    if first.startswith(("WARNING", "NOTICE", "Generating", "Processing", "==PROF==", "==ERROR==", "usage:")):
        raise InputError(f"{path}: no CSV table found, only console output (first line: {first[:80]!r})")
    raise InputError(f"{path}: not an nsys/ncu CSV export: unrecognised header {first[:100]!r}")


def file_hashes(path: Path) -> tuple[str, str | None]:
    """sha256 of the file's bytes and, for gzip, of its uncompressed content (else None)."""
    raw_hash = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            raw_hash.update(chunk)
    if not is_gzip(path):
        return raw_hash.hexdigest(), None
    content_hash = hashlib.sha256()
    try:
        with gzip.open(path, "rb") as fh:
            while chunk := fh.read(1 << 20):
                content_hash.update(chunk)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(f"{path}: corrupted gzip file ({exc})") from None
    return raw_hash.hexdigest(), content_hash.hexdigest()


def sibling(path: str, report: str, suffix: str = "cuda_gpu_trace") -> str | None:
    """The sibling export for `report` (`x_cuda_gpu_trace.csv.gz` -> `x_<report>.csv.gz`), if it exists."""
    _, sep, name = path.replace("\\", "/").rpartition("/")
    if suffix not in name:
        return None
    start = name.rfind(suffix)
    candidate_name = name[:start] + report + name[start + len(suffix):]
    # Keep the user's own spelling of the folder part (backslashes included) in what we return.
    candidate = path[: len(path) - len(name)] + candidate_name if sep else candidate_name
    return candidate if Path(candidate).is_file() else None


def sql_string(value: str) -> str:
    """A SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


def read_csv_call(path: Path, compressed: bool, *, skip: int, header: bool, columns: list[str],
                  null_padding: bool = False) -> str:
    """A strict DuckDB read_csv(...) call with explicit columns (`'name': 'TYPE'` items) and no sniffing."""
    return (
        f"read_csv({sql_string(str(path))}, skip={skip}, header={str(header).lower()}, "
        f"columns={{{', '.join(columns)}}}, delim=',', quote='\"', escape='\"', auto_detect=false, "
        f"strict_mode=true, null_padding={str(null_padding).lower()}, "
        f"compression='{'gzip' if compressed else 'none'}')"
    )
