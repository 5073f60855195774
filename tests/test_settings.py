"""The environment variables: parsed in one place, a bad value one line and exit 2 before any work."""

from __future__ import annotations

import pytest

from nsight_ingest import settings
from nsight_ingest.errors import InputError
from tests.conftest import SAMPLES

GOOD = SAMPLES / "h200_dit_oneblock_cuda_gpu_trace.csv"


@pytest.mark.parametrize(("given", "expected"), [("123", 123), ("2GB", 2_000_000_000), ("4GiB", 4 * 2**30),
                                                 ("1.5 MB", 1_500_000), ("512kib", 512 * 1024)])
def test_cache_cap_in_bytes_or_units(monkeypatch, given, expected):
    monkeypatch.setenv(settings.CACHE_MAX_BYTES, given)
    assert settings.cache_max_bytes() == expected


def test_defaults(monkeypatch):
    for name in (settings.CACHE_MAX_BYTES, settings.MEMORY_LIMIT, settings.EXPORT_TIMEOUT, settings.TEMP_DIR):
        monkeypatch.delenv(name, raising=False)
    assert settings.cache_max_bytes() == 4 * 2**30
    assert settings.memory_limit() == "512MB"
    assert settings.export_timeout_s() == 600
    assert settings.temp_dir() is None
    settings.checked()


@pytest.mark.parametrize(("name", "value", "said"), [
    (settings.CACHE_MAX_BYTES, "lots", "not a size"),
    (settings.CACHE_MAX_BYTES, "-1", "not a size (Memory cannot be negative"),
    (settings.MEMORY_LIMIT, "plenty", "not a size"),
    (settings.MEMORY_LIMIT, "-1", "not a size"),
    (settings.MEMORY_LIMIT, "0MB", "DuckDB needs some memory"),
    (settings.EXPORT_TIMEOUT, "0", "not a number of seconds above 0"),
    (settings.EXPORT_TIMEOUT, "soon", "not a number of seconds above 0"),
    (settings.EXPORT_TIMEOUT, "inf", "not a number of seconds above 0"),
])
def test_a_bad_value_is_one_line_naming_it(monkeypatch, run_cli, name, value, said):
    monkeypatch.setenv(name, value)
    with pytest.raises(InputError) as raised:
        settings.checked()
    assert str(raised.value).startswith(f"${name}='{value}': {said}")
    result = run_cli("classify", GOOD, "--no-cache")
    assert result.code == 2 and result.out == ""
    (line,) = result.err.strip().splitlines()
    assert line.startswith(f"nsight-ingest: error: ${name}='{value}': {said}")


def test_the_spill_folder_is_made_and_a_file_is_refused(monkeypatch, run_cli, tmp_path):
    monkeypatch.setenv(settings.TEMP_DIR, str(tmp_path / "spill" / "here"))
    assert run_cli("classify", GOOD, "--no-cache").code == 0
    assert (tmp_path / "spill" / "here").is_dir()
    (tmp_path / "a_file").write_text("x")
    monkeypatch.setenv(settings.TEMP_DIR, str(tmp_path / "a_file"))
    result = run_cli("classify", GOOD)
    assert result.code == 2 and result.err.strip() == (f"nsight-ingest: error: ${settings.TEMP_DIR}="
                                                       f"'{tmp_path / 'a_file'}': a file, not a folder")
