"""Open an export (plain or gzip), find its CSV header among console lines, and hash its bytes."""

from __future__ import annotations

import codecs
import csv
import gzip
import hashlib
import re
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from nsight_ingest import cache
from nsight_ingest.errors import InputError
from nsight_ingest.sqlfiles import sql_string

GZIP_MAGIC = b"\x1f\x8b"
SQLITE_MAGIC = b"SQLite format 3\x00"
HEAD_LINES = 400
_UNIT = re.compile(r"^(?P<base>.*?)\s*\((?P<unit>[^()]*)\)$")

# Distinctive columns of each report; the first whose columns all appear in a header wins. They are few on
# purpose: a report that lacks other required columns is still recognized, and the reader names what is missing.
REPORT_SIGNATURES: tuple[tuple[str, frozenset[str]], ...] = (
    ("cuda_gpu_trace", frozenset({"CorrId", "GrdX", "Strm"})),
    ("cuda_kern_exec_trace", frozenset({"API Start", "Kernel Start"})),
    ("nvtx_pushpop_trace", frozenset({"DurChild", "DurNonChild"})),
    ("cuda_api_trace", frozenset({"CorrID", "Result"})),
    ("cuda_gpu_kern_sum", frozenset({"Total Time", "Instances"})),
    ("cuda_api_sum", frozenset({"Total Time", "Num Calls"})),
    ("ncu_details", frozenset({"ID", "Section Name", "Metric Name"})),
    ("ncu_raw", frozenset({"ID", "Kernel Name", "Grid Size"})),
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


CONSOLE_PREFIXES = ("WARNING", "NOTICE", "Generating", "Processing", "==PROF==", "==ERROR==", "==WARNING==",
                   "usage:", "Try '", "SKIPPED")


def _console(line: str) -> bool:
    return line.strip().startswith(CONSOLE_PREFIXES)


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


def starts_with(path: Path, magic: bytes) -> bool:
    """True when the file's first bytes are `magic`."""
    with path.open("rb") as fh:
        return fh.read(len(magic)) == magic


def is_gzip(path: Path) -> bool:
    """True when the file starts with the gzip magic bytes, whatever its name."""
    return starts_with(path, GZIP_MAGIC)


def head_lines(path: Path, limit: int = HEAD_LINES) -> tuple[list[str], bool]:
    """First `limit` text lines of a plain or gzip file, and whether it was compressed."""
    _check_path(path)
    with path.open("rb") as fh:
        magic = fh.read(len(SQLITE_MAGIC))
    if magic == SQLITE_MAGIC:
        raise InputError(f"{path}: is an nsys SQLite export, not a CSV report")
    compressed = magic.startswith(GZIP_MAGIC)
    lines: list[str] = []
    try:
        with _open_text(path, compressed) as text:
            for line in text:
                lines.append(line)
                if len(lines) >= limit:
                    break
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(f"{path}: corrupted gzip file ({exc})") from None
    if not lines or not any(line.strip() for line in lines):
        raise InputError(f"{path}: file is empty" + (" after decompression" if compressed else ""))
    return lines, compressed


def _open_text(path: Path, compressed: bool):
    opener = gzip.open if compressed else open
    return opener(path, "rt", encoding="utf-8", errors="replace", newline="")


def _headers(lines, start: int = 0) -> list[tuple[int, str, list[str]]]:
    found = []
    for index, line in enumerate(lines, start=start):
        if "," in line and not line[:1].isdigit():
            cells = next(csv.reader([line.lstrip("\ufeff")]), [])
            kind = report_type_of(cells)
            if kind:
                found.append((index, kind, cells))
    return found


def report_types(path: Path) -> set[str]:
    """The reports whose headers appear in the head of a file."""
    lines, _ = head_lines(path)
    return {kind for _, kind, _ in _headers(lines)}


def locate_table(path: Path, expected: str) -> CsvTable:
    """Find the header of the `expected` report, skipping console lines and other reports before it."""
    lines, compressed = head_lines(path)
    found = _headers(lines)
    if not any(kind == expected for _, kind, _ in found) and len(lines) == HEAD_LINES and _console(lines[0]):
        # an `nsys stats` stdout capture with several reports: look past the head for the one wanted
        with _open_text(path, compressed) as text:
            found = _headers(text)
    for index, kind, cells in found:
        if kind == expected:
            return CsvTable(path, kind, index, tuple(split_header(c) for c in cells), compressed)
    if found:
        kinds = ", ".join(sorted({kind for _, kind, _ in found}))
        raise InputError(f"{path}: this is a {kinds} report, expected {expected}")
    first = next((line.strip() for line in lines if line.strip()), "")
    if _console(first):
        raise InputError(f"{path}: no CSV table found, only console output (first line: {first[:80]!r})")
    raise InputError(f"{path}: not an nsys/ncu CSV export: unrecognised header {first[:100]!r}")


def _sha256_of_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _sha256_of_directory(path: Path) -> str:
    """An export directory's hash: of each file's name and sha256, in name order."""
    digest = hashlib.sha256()
    for file in sorted(p for p in path.iterdir() if p.is_file()):
        digest.update(f"{file.name}\0{_sha256_of_file(file)}\n".encode())
    return digest.hexdigest()


_HASHED: dict[tuple, tuple[str, str | None]] = {}


def file_identity(path: Path) -> tuple:
    """What changes when the file (or a file of the directory) changes: path, inode, size, modification and
    change times."""
    files = sorted(path.iterdir()) if path.is_dir() else [path]
    return str(path.resolve()), *((f.name, *_stat_key(f)) for f in files)


def _stat_key(path: Path) -> tuple:
    info = path.stat()
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


def file_hashes(path: Path) -> tuple[str, str | None]:
    """sha256 of the input's bytes (of a directory: of its files') and, for gzip, of its uncompressed content
    (else None); computed once per process for unchanged files."""
    key = file_identity(path)
    if key not in _HASHED:
        _HASHED[key] = _hashes(path)
    return _HASHED[key]


def remember_hashes(path: Path, hashes: tuple[str, str | None]) -> None:
    """Take `hashes` as the unchanged file's (remembered from an earlier run)."""
    _HASHED[file_identity(path)] = hashes


def _hashes(path: Path) -> tuple[str, str | None]:
    if path.is_dir():
        return _sha256_of_directory(path), None
    raw = _sha256_of_file(path)
    if not is_gzip(path):
        return raw, None
    content_hash = hashlib.sha256()
    try:
        with gzip.open(path, "rb") as fh:
            while chunk := fh.read(1 << 20):
                content_hash.update(chunk)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(f"{path}: corrupted gzip file ({exc})") from None
    return raw, content_hash.hexdigest()


def sibling(path: str, report: str, suffix: str = "cuda_gpu_trace") -> str | None:
    """The sibling export for `report` (`x_cuda_gpu_trace.csv.gz` -> `x_<report>.csv.gz`, else `x_<report>.csv`;
    and the other way round for a plain .csv), if it exists."""
    _, sep, name = path.replace("\\", "/").rpartition("/")
    if suffix not in name:
        return None
    start = name.rfind(suffix)
    same = name[:start] + report + name[start + len(suffix):]
    other_compression = same.removesuffix(".gz") if same.endswith(".gz") else same + ".gz"
    for candidate_name in (same, other_compression):
        # Keep the user's own spelling of the folder part (backslashes included) in what we return.
        candidate = path[: len(path) - len(name)] + candidate_name if sep else candidate_name
        if Path(candidate).is_file():
            return candidate
    return None


def read_csv_call(path: Path, compressed: bool, *, skip: int, header: bool, columns: list[str],
                  null_padding: bool = False) -> str:
    """A strict DuckDB read_csv(...) call with explicit columns (`'name': 'TYPE'` items) and no sniffing."""
    return (
        f"read_csv({sql_string(str(path))}, skip={skip}, header={str(header).lower()}, "
        f"columns={{{', '.join(columns)}}}, delim=',', quote='\"', escape='\"', auto_detect=false, "
        f"strict_mode=true, null_padding={str(null_padding).lower()}, "
        f"compression='{'gzip' if compressed else 'none'}')"
    )


def _is_data_line(line: str) -> bool:
    """Rows of nsys tables start with a number, rows of ncu tables with a quote; anything else ends a table."""
    head = line.lstrip()[:1]
    return head.isdigit() or head in ('"', "-")


@dataclass(frozen=True)
class TableFile:
    """The file DuckDB reads for a table: the input itself, or a copy of just the table (`temporary`, to delete
    afterwards), whose first `lines_before` lines of the input were left out (added to a line an error names)."""

    path: Path
    compressed: bool
    header_line: int
    temporary: Path | None = None
    lines_before: int = 0


def table_copy(table: CsvTable, always_scan: bool) -> TableFile:
    """The file to read `table` from. When console lines or further reports follow the table, DuckDB reads a byte
    copy of just the table. Only files with console lines before the table (an `nsys stats` stdout capture), or
    `always_scan`, are scanned; a quoted field may hold line breaks."""
    whole = TableFile(table.path, table.compressed, table.header_line)
    if not (always_scan or table.header_line > 0):
        return whole
    with _open_text(table.path, table.compressed) as text:
        lines = text.readlines()
    end, quoted = table.header_line + 1, False
    while end < len(lines) and (quoted or _is_data_line(lines[end])):
        quoted ^= lines[end].count('"') % 2 == 1  # quotes inside a field are doubled, so an odd count opens or closes
        end += 1
    if all(not line.strip() for line in lines[end:]):
        return whole
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False, encoding="utf-8", newline="") as out:
        out.writelines(lines[table.header_line:end])
    return TableFile(Path(out.name), False, 0, Path(out.name), table.header_line)


def utf8_copy(path: Path) -> tuple[Path, int]:
    """A UTF-8 copy of a file with invalid byte sequences replaced by U+FFFD, and how many were replaced."""
    opener = gzip.open if is_gzip(path) else open
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    replaced = 0
    with opener(path, "rb") as raw, \
            tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False, encoding="utf-8", newline="") as out:
        while chunk := raw.read(1 << 20):
            text = decoder.decode(chunk)
            replaced += text.count("\ufffd") - chunk.count(b"\xef\xbf\xbd")
            out.write(text)
        out.write(decoder.decode(b"", final=True))
    return Path(out.name), replaced


def _hash_entry(folder: Path, path: Path) -> Path:
    return folder / hashlib.sha256(repr(file_identity(path)).encode()).hexdigest()


def remembered_hashes(path: Path, folder: Path) -> tuple[str, str | None] | None:
    """The input's hashes when `folder` remembers them for the file as it is now (see known_hashes), else None."""
    try:
        raw, _, content = _hash_entry(folder, path).read_text().partition(" ")
    except OSError:
        return None
    if len(raw) != 64:
        return None
    hashes = (raw, content.strip() or None)
    remember_hashes(path, hashes)
    return hashes


def known_hashes(path: Path, folder: Path) -> tuple[str, str | None]:
    """The input's hashes (file_hashes), remembered in `folder` by the file's identity (path, inode, size,
    modification and change times) so that an unchanged input is not read again to be named."""
    hashes = remembered_hashes(path, folder)
    if hashes is not None:
        return hashes
    hashes = file_hashes(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with cache.whole(_hash_entry(folder, path)) as written:
            written.write_text(f"{hashes[0]} {hashes[1] or ''}\n")
    except OSError:
        pass  # an unusable cache folder only means the file is read again next time
    return hashes
