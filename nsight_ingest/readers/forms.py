"""What form an input is, told by its content (magic bytes, a directory's files) rather than its name, and the
Input the store reads: a CSV report (plain or gzip), an nsys export (`.sqlite`, parquetdir, arrowdir), or an
`.nsys-rep` report (converted to an export first), from a path, `-` or a pipe."""

from __future__ import annotations

import atexit
import os
import shutil
import stat
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from nsight_ingest import settings
from nsight_ingest.errors import InputError
from nsight_ingest.readers.source import GZIP_MAGIC, SQLITE_MAGIC

REPORT_MAGIC = b"NVIDIA Tegra Profiler Report"  # the first bytes of an .nsys-rep (and of a legacy .qdrep)
PARQUET_MAGIC = b"PAR1"
ARROW_STREAM_MAGIC = b"\xff\xff\xff\xff"  # an Arrow IPC stream starts with a continuation marker
EXPORT_FORMS = ("sqlite", "parquetdir", "arrowdir")
STDIN = "-"


@dataclass(frozen=True)
class Input:
    """One input as the store reads it: the file or export directory `path`, named `label` as the user gave it,
    of `form` (csv | sqlite | parquetdir | arrowdir); `identity` is whose bytes name it (the .nsys-rep an export
    was converted from, else `path`)."""

    path: Path
    label: str
    form: str
    identity: Path
    streamed: bool = False  # read from stdin or a pipe (spooled to a temporary file)
    notes: tuple[str, ...] = ()  # warnings of getting it (a damaged cached conversion made again)

    @property
    def is_export(self) -> bool:
        """True for an nsys export, which holds every report of a capture."""
        return self.form in EXPORT_FORMS


def _directory_form(path: Path) -> str:
    names = {entry.name for entry in path.iterdir()}
    for form, suffix in (("parquetdir", ".parquet"), ("arrowdir", ".arrow")):
        if f"StringIds{suffix}" in names or f"CUPTI_ACTIVITY_KIND_KERNEL{suffix}" in names:
            return form
    raise InputError(f"{path}: a directory that is no nsys export (an `nsys export --type parquetdir` or "
                     f"`--type arrowdir` folder holds StringIds.parquet or StringIds.arrow)")


def form_of(path: Path) -> str:
    """csv | sqlite | parquetdir | arrowdir | nsys-rep, from the content of `path`."""
    if not path.exists():
        raise InputError(f"{path}: no such file")
    if path.is_dir():
        return _directory_form(path)
    with path.open("rb") as fh:
        head = fh.read(len(REPORT_MAGIC))
    if head.startswith(SQLITE_MAGIC):
        return "sqlite"
    if head.startswith(REPORT_MAGIC):
        return "nsys-rep"
    if head.startswith(PARQUET_MAGIC) or head.startswith(ARROW_STREAM_MAGIC):
        raise InputError(f"{path}: one table of a Parquet/Arrow export; give the export's directory")
    return "csv"


def _spooled(stream, label: str) -> Path:
    """A temporary copy of a stream (stdin, a pipe), removed when the process ends."""
    with tempfile.NamedTemporaryFile(prefix="nsight-ingest-stdin-", suffix=".csv", delete=False,
                                     dir=settings.temp_dir()) as out:
        copy = Path(out.name)
        atexit.register(copy.unlink, missing_ok=True)  # also when the copy fails half-way (a full disk)
        first = stream.read(1 << 16)
        if b"\0" in first and not first.startswith(GZIP_MAGIC):  # /dev/zero, a binary file: never a CSV
            raise InputError(f"{label}: a stream must be a CSV report (plain or gzip); this one holds binary data")
        out.write(first)
        shutil.copyfileobj(stream, out, 1 << 20)
    if copy.stat().st_size == 0:
        raise InputError(f"{label}: no data on the stream (0 bytes)")
    try:
        form = form_of(copy)
    except InputError:
        form = "unknown"
    if form != "csv":
        raise InputError(f"{label}: a stream must be a CSV report (plain or gzip); give an nsys export as a file")
    return copy


def _is_stream(path: Path) -> bool:
    """True for a pipe or character device (/dev/stdin, process substitution), whose size says nothing."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def resolve(text: str, nsys: str | None = None, cache_dir: Path | None = None) -> Input:
    """The Input named `text`: `-` (stdin) and pipes are spooled to a file; an .nsys-rep is converted with nsys
    (readers.report) into a cached export."""
    if text == STDIN:
        if sys.stdin is None or sys.stdin.closed or sys.stdin.isatty():
            raise InputError("-: stdin is a terminal or closed; pipe a CSV report into it "
                             "(zcat run_cuda_gpu_trace.csv.gz | nsight-ingest classify -)")
        return _spool_input(sys.stdin.buffer, "<stdin>")
    path = Path(text)
    if _is_stream(path):
        with path.open("rb") as stream:
            return _spool_input(stream, text)
    form = form_of(path)
    if form == "nsys-rep":
        from nsight_ingest.readers import report

        export, notes = report.exported(path, nsys, cache_dir)
        return Input(export, text, form_of(export), path, notes=notes)
    return Input(path, text, form, path)


def _spool_input(stream, label: str) -> Input:
    copy = _spooled(stream, label)
    return Input(copy, label, "csv", copy, streamed=True)


def as_input(source: Input | str | os.PathLike) -> Input:
    """An Input for a path given directly (no stream, no conversion)."""
    if isinstance(source, Input):
        return source
    path = Path(source)
    return Input(path, str(source), form_of(path), path)
