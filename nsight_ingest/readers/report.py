"""An .nsys-rep (or legacy .qdrep) report, read through nsys: converted once with `nsys export` into an export
directory kept in a cache, and read from there while the report's bytes are unchanged."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from nsight_ingest import cache
from nsight_ingest.errors import InputError
from nsight_ingest.readers.source import file_hashes

# Parquet, because DuckDB reads it directly, in parallel; an .sqlite export must stream through Python.
EXPORT_TYPE = "parquetdir"
NSYS_ENV = "NSYS"
BESIDE_REPORT = ".nsight-ingest-cache"  # the cache folder beside a report, when its folder is writable
EXPORT_TIMEOUT_S = 3600


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


def conversion_folder(report: Path, cache_dir: Path | None) -> Path:
    """Where a report's conversion goes: `cache_dir` when given, else a folder beside the report when it can be
    written there, else the user's cache folder."""
    if cache_dir is not None:
        folder = cache.root(cache_dir) / "reports"
    else:
        folder = report.resolve().parent / BESIDE_REPORT
        try:
            folder.mkdir(exist_ok=True)
        except OSError:
            folder = cache.root() / "reports"
        else:
            if os.access(folder, os.W_OK):
                return folder
            folder = cache.root() / "reports"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _complete(export: Path) -> bool:
    return (export / "StringIds.parquet").is_file() and (export / "CUPTI_ACTIVITY_KIND_KERNEL.parquet").is_file()


def _failure(report: Path, completed: subprocess.CompletedProcess) -> InputError:
    lines = [line.strip() for line in (completed.stderr + completed.stdout).splitlines() if line.strip()]
    reason = lines[-1] if lines else f"exit code {completed.returncode}"
    return InputError(f"{report}: nsys could not export the report: {reason}")


def exported(report: Path, nsys: str | None, cache_dir: Path | None) -> Path:
    """The export directory of `report`, converted now unless a conversion of the same bytes is cached."""
    sha256 = file_hashes(report)[0]
    folder = conversion_folder(report, cache_dir)
    target = folder / f"{report.stem}.{sha256[:16]}.{EXPORT_TYPE}"
    if _complete(target):
        cache.touch(target)
        return target
    executable = find_nsys(nsys)
    if executable is None:
        raise InputError(
            f"{report}: reading an .nsys-rep needs nsys (none found: give --nsys PATH or set {NSYS_ENV}); or, where "
            f"nsys is installed, run `nsys export --type {EXPORT_TYPE} --output {report.stem}_pq {report.name}` "
            f"(or `--type sqlite`) and give the result here")
    written = cache.partial(target)
    cache.remove(written)
    try:
        completed = subprocess.run(export_command(executable, report, written), capture_output=True, text=True,
                                   errors="replace", timeout=EXPORT_TIMEOUT_S, check=False)
        if completed.returncode != 0 or not _complete(written):
            raise _failure(report, completed)
        cache.publish(written, target)
    except subprocess.TimeoutExpired:
        raise InputError(f"{report}: nsys export ran past {EXPORT_TIMEOUT_S} s") from None
    except OSError as exc:
        raise InputError(f"{report}: could not run nsys ({exc})") from None
    finally:
        cache.remove(written)
    for stale in folder.glob(f"{report.stem}.*.{EXPORT_TYPE}"):
        if stale != target:  # a conversion of earlier bytes of the same report
            cache.remove(stale)
    cache.evict(folder, keep=target)
    return target
