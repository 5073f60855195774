"""The environment variables nsight-ingest reads, with their defaults, each parsed in one place. `checked()` runs
before a command does anything, so a bad value is one line that names the variable (exit 2), never a late failure
or a value quietly ignored."""

from __future__ import annotations

import os
from pathlib import Path

import duckdb

from nsight_ingest import user_sql
from nsight_ingest.errors import InputError, first_line

CACHE_DIR = "NSIGHT_INGEST_CACHE_DIR"  # the cache folder (else $XDG_CACHE_HOME/nsight-ingest)
CACHE_MAX_BYTES = "NSIGHT_INGEST_CACHE_MAX_BYTES"  # the size cap of one cache folder
MEMORY_LIMIT = "NSIGHT_INGEST_MEMORY_LIMIT"  # DuckDB's memory limit: past it a store spills to TEMP_DIR
TEMP_DIR = "NSIGHT_INGEST_TEMP_DIR"  # where DuckDB spills and temporary copies of inputs go
EXPORT_TIMEOUT = "NSIGHT_INGEST_EXPORT_TIMEOUT_S"  # how long one `nsys export` of an .nsys-rep may run
DEFAULTS = {CACHE_MAX_BYTES: "4GiB", MEMORY_LIMIT: "512MB",
            # a 200,000-kernel report converts in about 1.5 s: ten minutes is a report hundreds of times larger, or
            # an nsys that hangs (a nightly job must not wait for it for an hour)
            EXPORT_TIMEOUT: "600"}
SIZE_EXAMPLE = "a number of bytes with a unit, as 512MB or 4GiB"


def _given(name: str) -> str:
    return os.environ.get(name) or DEFAULTS[name]


def _size(name: str) -> int:
    """The size in bytes that variable `name` gives, in DuckDB's units (KB, MB, GiB, ...)."""
    text = _given(name).strip()
    try:
        # the units DuckDB's memory_limit takes, so both sizes are written the same way; not the module's default
        # connection, which may be in use by the caller
        con, parsing = user_sql.parser()
        with parsing:
            (size,) = con.execute("SELECT parse_formatted_bytes(?)", [text]).fetchone()
    except duckdb.Error as exc:
        raise InputError(f"${name}={text!r}: not a size ({first_line(exc).removeprefix('Invalid Input Error: ')}; "
                         f"give {SIZE_EXAMPLE})") from None
    return int(size)


def cache_max_bytes() -> int:
    """The size cap of one cache folder (a plain number is bytes)."""
    text = _given(CACHE_MAX_BYTES).strip()
    return int(text) if text.isdigit() else _size(CACHE_MAX_BYTES)


def memory_limit() -> str:
    """DuckDB's memory limit, as given."""
    return _given(MEMORY_LIMIT).strip()


def temp_dir() -> str | None:
    """The folder for spills and temporary copies; None: the system's."""
    return os.environ.get(TEMP_DIR) or None


def export_timeout_s() -> float:
    """Seconds one `nsys export` may run."""
    text = _given(EXPORT_TIMEOUT).strip()
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not seconds > 0 or seconds == float("inf"):
        raise InputError(f"${EXPORT_TIMEOUT}={text!r}: not a number of seconds above 0")
    return seconds


def checked() -> None:
    """Every variable parsed now: InputError (one line) for the first bad one."""
    cache_max_bytes()
    if _size(MEMORY_LIMIT) == 0:
        raise InputError(f"${MEMORY_LIMIT}={memory_limit()!r}: DuckDB needs some memory; give {SIZE_EXAMPLE}")
    export_timeout_s()
    folder = temp_dir()  # made when missing, as DuckDB makes its spill folder (an unusable cache is a warning)
    if folder and Path(folder).exists() and not Path(folder).is_dir():
        raise InputError(f"${TEMP_DIR}={folder!r}: a file, not a folder")
    try:
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"${TEMP_DIR}={folder!r}: not a folder that can be written ({exc.strerror or exc})") from None
