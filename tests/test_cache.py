"""The cache folder: eviction of the least recently used entries, whole entries only, remembered hashes."""

from __future__ import annotations

import os

from nsight_ingest import cache, settings
from nsight_ingest.readers import source


def entry(folder, name: str, size: int, used: int):
    path = folder / name
    path.write_bytes(b"x" * size)
    os.utime(path, (used, used))
    return path


def test_least_recently_used_go_first_and_the_kept_one_stays(tmp_path):
    old, middle, new = (entry(tmp_path, f"{n}.duckdb", 100, t) for n, t in (("old", 1), ("middle", 2), ("new", 3)))
    log = tmp_path / "old.duckdb.wal"
    log.write_bytes(b"log")
    being_written = entry(tmp_path, f"{cache.PARTIAL}1-next.duckdb", 1000, 0)
    lock = entry(tmp_path, "new.lock", 0, 0)
    assert cache.evict(tmp_path, keep=old, limit=150) == [middle, new]  # `old` is the one in use
    assert old.exists() and log.exists() and being_written.exists() and lock.exists()
    assert cache.evict(tmp_path, keep=being_written, limit=0) == [old]
    assert not log.exists()  # a store goes with its write-ahead log


def test_publish_replaces_a_folder_whole(tmp_path):
    final = tmp_path / "run.parquetdir"
    final.mkdir()
    (final / "stale.parquet").write_text("old")
    written = cache.partial(final)
    written.mkdir()
    (written / "StringIds.parquet").write_text("new")
    cache.publish(written, final)
    assert [p.name for p in final.iterdir()] == ["StringIds.parquet"] and not written.exists()


def test_hashes_are_remembered_by_file_identity(tmp_path, monkeypatch):
    data = tmp_path / "t.csv"
    data.write_text("a,b\n1,2\n")
    folder = tmp_path / "hashes"
    first = source.known_hashes(data, folder)
    assert first == source.file_hashes(data)
    monkeypatch.setattr(source, "_hashes", lambda path: (_ for _ in ()).throw(AssertionError("read again")))
    source._HASHED.clear()
    assert source.known_hashes(data, folder) == first  # from the remembered entry, the file unread
    monkeypatch.undo()
    data.write_text("a,b\n1,3\n")  # changed bytes (and times): hashed anew
    assert source.known_hashes(data, folder) != first


def test_the_cache_folder_is_chosen_in_order(tmp_path, monkeypatch):
    monkeypatch.delenv(settings.CACHE_DIR, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.root() == tmp_path / "xdg" / "nsight-ingest"
    monkeypatch.setenv(settings.CACHE_DIR, str(tmp_path / "env"))
    assert cache.root() == tmp_path / "env"
    assert cache.root(tmp_path / "given") == tmp_path / "given"
