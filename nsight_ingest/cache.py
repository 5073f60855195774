"""The user's cache folder: .nsys-rep conversions and ingested stores, named by the content they came from, the
least recently used evicted past a size cap. Entries appear whole (written aside, then renamed) or not at all."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from nsight_ingest import settings

PARTIAL = ".partial-"  # the name prefix of an entry being written


def root(cache_dir: Path | None = None) -> Path:
    """The cache folder: `cache_dir`, else $NSIGHT_INGEST_CACHE_DIR, else $XDG_CACHE_HOME/nsight-ingest, else
    ~/.cache/nsight-ingest."""
    if cache_dir is not None:
        return Path(cache_dir)
    if os.environ.get(settings.CACHE_DIR):
        return Path(os.environ[settings.CACHE_DIR])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "nsight-ingest"


def partial(final: Path) -> Path:
    """Where an entry is written before it is published as `final` (unique to this process)."""
    return final.with_name(f"{PARTIAL}{os.getpid()}-{final.name}")


def publish(written: Path, final: Path) -> None:
    """Make a written entry visible under its final name in one rename (a stale one of that name goes first)."""
    if final.is_dir():
        shutil.rmtree(final, ignore_errors=True)
    os.replace(written, final)


@contextmanager
def whole(final: Path) -> Iterator[Path]:
    """The path to write `final` at (file or folder): published under its name when the block ends, removed when
    it fails, so `final` is the old entry or the whole new one, never a cut one."""
    written = partial(final)
    remove(written)
    try:
        yield written
        publish(written, final)
    finally:
        remove(written)


COMPANIONS = (".wal", ".lock")  # files that go with an entry of the name before them (a store's log and lock)


def remove(entry: Path) -> None:
    """Delete an entry, file or folder, with its write-ahead log; one already gone is fine."""
    if entry.is_dir():
        shutil.rmtree(entry, ignore_errors=True)
    else:
        entry.unlink(missing_ok=True)
        entry.with_name(entry.name + ".wal").unlink(missing_ok=True)


def _size(entry: Path) -> int:
    if entry.is_dir():
        return sum(f.stat().st_size for f in entry.rglob("*") if f.is_file())
    return entry.stat().st_size


def touch(entry: Path) -> None:
    """Mark an entry used now (eviction removes the least recently used first)."""
    os.utime(entry)


def evict(folder: Path, keep: Path, limit: int | None = None) -> list[Path]:
    """Remove the least recently used entries of `folder` until it holds at most `limit` bytes (never `keep`,
    nor an entry being written); the entries removed."""
    limit = settings.cache_max_bytes() if limit is None else limit
    entries = []
    for entry in folder.iterdir():
        if entry.name.startswith(PARTIAL) or entry.suffix in COMPANIONS:
            continue
        try:
            entries.append((entry.stat().st_mtime_ns, _size(entry), entry))
        except OSError:
            continue  # removed meanwhile by another process
    total = sum(size for _, size, _ in entries)
    removed = []
    for _, size, entry in sorted(entries):
        if total <= limit:
            break
        if entry != keep:
            remove(entry)
            total -= size
            removed.append(entry)
    return removed
