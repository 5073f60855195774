"""An .nsys-rep (or legacy .qdrep) report, read through nsys: converted once with `nsys export` into an export
directory kept in a cache, and read from there while the report's bytes are unchanged."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from nsight_ingest import cache, settings
from nsight_ingest.errors import InputError, first_line
from nsight_ingest.readers import source

# Parquet, because DuckDB reads it directly, in parallel; an .sqlite export must stream through Python.
EXPORT_TYPE = "parquetdir"
REQUIRED_TABLES = ("StringIds", "CUPTI_ACTIVITY_KIND_KERNEL")  # what every conversion of a report holds
NSYS_ENV = "NSYS"
BESIDE_REPORT = ".nsight-ingest-cache"  # the cache folder beside a report, when its folder is writable


def find_nsys(given: str | None) -> str | None:
    """The nsys executable: `given` (--nsys), else $NSYS, else `nsys` on PATH; None when there is none."""
    for candidate, origin in ((given, "--nsys"), (os.environ.get(NSYS_ENV), f"${NSYS_ENV}")):
        if candidate:
            found = shutil.which(candidate)
            if not found:
                raise InputError(f"{origin} {candidate}: no such executable")
            return found
    return shutil.which("nsys")


def export_command(nsys: str, report: Path, output: Path) -> list[str]:
    """The nsys command that writes `report` as an export at `output`."""
    return [nsys, "export", "--type", EXPORT_TYPE, "--force-overwrite", "true", "--output", str(output), str(report)]


def conversion_folders(report: Path, cache_dir: Path | None) -> list[Path]:
    """Where a report's conversion may be, in order: `cache_dir` alone when given, else a folder beside the report
    (when it can be written there), then the user's cache folder."""
    cached = cache.root(cache_dir) / "reports"
    return [cached] if cache_dir is not None else [report.resolve().parent / BESIDE_REPORT, cached]


def _writable(folder: Path) -> bool:
    """True when a file can be created in `folder` (made if missing); tried, as permissions can mislead."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


def damage(export: Path) -> str | None:
    """What makes a conversion unusable: a table every export holds that is missing, or a Parquet file whose footer
    cannot be read (cut short, overwritten); None when it is whole."""
    import pyarrow as pa
    import pyarrow.parquet

    for table in REQUIRED_TABLES:
        if not (export / f"{table}.parquet").is_file():
            return f"it holds no {table}.parquet"
    for table in sorted(export.glob("*.parquet")):
        try:
            pyarrow.parquet.read_metadata(table)
        except (pa.ArrowException, OSError) as exc:
            return f"{table.name} cannot be read: {first_line(exc)}"
    return None


def _failure(report: Path, completed: subprocess.CompletedProcess) -> InputError:
    lines = [line.strip() for line in (completed.stderr + completed.stdout).splitlines() if line.strip()]
    reason = lines[-1] if lines else f"exit code {completed.returncode}"
    return InputError(f"{report}: nsys could not export the report: {reason}")


def exported(report: Path, nsys: str | None, cache_dir: Path | None) -> tuple[Path, tuple[str, ...]]:
    """The export directory of `report`, converted now unless a whole conversion of the same bytes is cached, and
    the warnings of getting it (a damaged conversion found in the cache is removed and made again)."""
    sha256 = source.known_hashes(report, cache.root(cache_dir) / "hashes")[0]
    # the report's own folder names its conversions, so reports of one name in two folders keep theirs apart
    prefix = f"{report.stem}.{hashlib.sha256(str(report.resolve()).encode()).hexdigest()[:8]}"
    name = f"{prefix}.{sha256[:16]}.{EXPORT_TYPE}"
    folders = conversion_folders(report, cache_dir)
    notes = []
    for folder in folders:
        if not (folder / name).is_dir():
            continue
        found = damage(folder / name)
        if found is None:
            cache.touch(folder / name)
            return folder / name, tuple(notes)
        cache.remove(folder / name)
        notes.append(f"{report}: its cached conversion {folder / name} was damaged ({found}); it was removed and "
                     f"the report converted again")
    executable = find_nsys(nsys)
    if executable is None:
        raise InputError(
            f"{report}: reading an .nsys-rep needs nsys (none found: give --nsys PATH or set {NSYS_ENV}); or, where "
            f"nsys is installed, run `nsys export --type {EXPORT_TYPE} --output {report.stem}_pq {report}` "
            f"(or `--type sqlite`) and give the result here")
    folder = next((f for f in folders if _writable(f)), None)
    if folder is None:
        raise InputError(f"{report}: no folder to convert it into ({', '.join(map(str, folders))} cannot be "
                         f"written); give --cache-dir DIR")
    target = folder / name
    timeout_s = settings.export_timeout_s()
    try:
        with cache.whole(target) as written:
            completed = subprocess.run(export_command(executable, report, written), capture_output=True, text=True,
                                       errors="replace", timeout=timeout_s, check=False)
            if completed.returncode != 0:
                raise _failure(report, completed)
            found = damage(written)
            if found is not None:  # never cached: the next command would read it again
                raise InputError(f"{report}: nsys export wrote a damaged export ({found})")
    except subprocess.TimeoutExpired:
        raise InputError(f"{report}: nsys export ran past {timeout_s:g} s (${settings.EXPORT_TIMEOUT} sets how "
                         f"long it may run)") from None
    except OSError as exc:
        raise InputError(f"{report}: could not run nsys ({exc})") from None
    for stale in folder.glob(f"{prefix}.*.{EXPORT_TYPE}"):
        if stale != target:  # a conversion of earlier bytes of this report
            cache.remove(stale)
    cache.evict(folder, keep=target)
    return target, tuple(notes)
