"""Ingested stores kept between commands without --db: the store of a command's inputs, named by their hashes
(and the store's format), so a later command on the same bytes reads it, and the results stored in it, instead of
parsing again. A store is built as a temporary one and published whole after the command succeeds; a damaged one is
rebuilt, never trusted."""

from __future__ import annotations

import contextlib
import hashlib
import json
from dataclasses import dataclass, field
from functools import cache as cache_result
from pathlib import Path

import duckdb

from nsight_ingest import __version__, cache, store
from nsight_ingest.errors import InputError, first_line
from nsight_ingest.sqlfiles import sql_root, sql_string

DAMAGED = "{path}: a damaged cached store was removed; the inputs are read again"
LOCK_TIMEOUT_S = 120.0  # how long a command waits for another one using the same cached store


@dataclass
class CachedStore:
    """The store a command uses: found in the cache (`hit`), or a new temporary one published at `path` when the
    command succeeds."""

    con: duckdb.DuckDBPyConnection
    path: Path
    hit: bool
    notes: list[str] = field(default_factory=list)
    lock: object | None = None


@cache_result
def code_fingerprint() -> str:
    """What a cached store and its answers depend on besides the inputs: the tool's version, its SQL and its Python
    (an edited query must not be answered from a store of the old one)."""
    digest = hashlib.sha256(__version__.encode())
    package = Path(__file__).resolve().parent
    for path in [*sorted(sql_root().rglob("*.sql")), *sorted(package.rglob("*.py"))]:
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()


def key(inputs: list[tuple[str, str]], details: bool = False) -> str:
    """The name of the store of these (role, sha256) inputs, in order; a store with the columns no analysis reads
    (`details`) is another one."""
    return hashlib.sha256(json.dumps([code_fingerprint(), inputs, *(["details"] if details else [])]).encode()
                          ).hexdigest()[:32]


def _holds(con: duckdb.DuckDBPyConnection, sha256s: set[str]) -> bool:
    stored = {sha for (sha,) in con.execute("SELECT DISTINCT sha256 FROM traces").fetchall()}
    return sha256s <= stored and con.execute("SELECT count(*) FROM captures").fetchone()[0] > 0


def open_store(folder: Path, name: str, sha256s: set[str], details: bool = False) -> CachedStore:
    """The cached store `name` of `folder` when it is whole and holds these inputs, else a new temporary one (with
    the columns no analysis reads when `details`)."""
    from filelock import FileLock, Timeout

    path = folder / f"{name}.duckdb"
    folder.mkdir(parents=True, exist_ok=True)
    notes = []
    if path.exists():
        lock = FileLock(path.with_suffix(".lock"))
        try:
            lock.acquire(timeout=LOCK_TIMEOUT_S)
        except Timeout:
            raise InputError(f"{path}: another command holds this cached store (waited {LOCK_TIMEOUT_S:g} s); "
                             f"try --no-cache") from None
        con = None
        try:
            con = store.connect(path)
            if _holds(con, sha256s):
                cache.touch(path)
                return CachedStore(con, path, True, lock=lock)
        except (duckdb.Error, InputError):
            pass
        if con is not None:
            con.close()
        cache.remove(path)
        lock.release()
        notes.append(DAMAGED.format(path=path))
    return CachedStore(store.connect(details=details), path, False, notes)


def close(cached: CachedStore) -> str | None:
    """The command succeeded: publish a new store in the cache, then close the store and release its lock; a
    warning when the store could not be kept (the answer stands)."""
    warning = None
    if not cached.hit:
        try:
            _publish(cached)
        except (OSError, duckdb.Error) as exc:
            warning = f"{cached.path}: the store could not be kept in the cache ({first_line(exc)})"
    cached.con.close()
    if cached.lock is not None:
        cached.lock.release()
    return warning


def discard(cached: CachedStore) -> str:
    """Remove a cached store found damaged while it was used; the warning to give."""
    with contextlib.suppress(duckdb.Error):
        cached.con.close()
    cache.remove(cached.path)
    if cached.lock is not None:
        cached.lock.release()
    return DAMAGED.format(path=cached.path)


def _publish(cached: CachedStore) -> None:
    """Write a new store into the cache under its name, whole, and evict past the cap."""
    with cache.whole(cached.path) as written:
        cache.remove(cached.path)  # a store evicted while this command ran may have left its log
        cached.con.execute(f"ATTACH {sql_string(str(written))} AS published")
        try:
            cached.con.execute(f"COPY FROM DATABASE {store.TEMPORARY} TO published")
        finally:
            cached.con.execute("DETACH published")
    cache.evict(cached.path.parent, keep=cached.path)


def cached_answer(folder: Path, name: str) -> dict | None:
    """The answer kept under `name` in `folder` (an analysis of several stores' inputs), if any and readable."""
    path = folder / f"{name}.json"
    try:
        answer = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    cache.touch(path)
    return answer if isinstance(answer, dict) else None


def keep_answer(folder: Path, name: str, answer: dict) -> str | None:
    """Keep an answer under `name` in `folder`, whole, evicting past the cap; a warning when it cannot be kept."""
    path = folder / f"{name}.json"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with cache.whole(path) as written:
            written.write_text(json.dumps(answer))
        cache.evict(folder, keep=path)
    except OSError as exc:
        return f"{path}: the answer could not be kept in the cache ({exc.strerror or exc})"
    return None
