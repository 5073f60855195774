"""Per-update wall-clock timings of matched before/after runs: a CSV with `trial, variant, update, seconds`."""

from __future__ import annotations

from pathlib import Path

from nsight_ingest.errors import InputError
from nsight_ingest.readers.source import head_lines
from nsight_ingest.sqlfiles import sql_string

COLUMNS = ("trial", "variant", "update", "seconds")


def select(path: Path) -> str:
    """A SELECT of the timings rows (trial, variant, update, seconds), checking the header first."""
    lines, compressed = head_lines(path, limit=1)
    header = [c.strip().strip('"').lower() for c in lines[0].lstrip("\ufeff").split(",")]
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise InputError(f"{path}: timings need columns {', '.join(COLUMNS)}; missing {', '.join(missing)}")
    return (f'SELECT CAST("trial" AS VARCHAR) AS trial, lower(CAST("variant" AS VARCHAR)) AS variant, '
            f'CAST("update" AS BIGINT) AS "update", CAST("seconds" AS DOUBLE) AS seconds '
            f"FROM read_csv({sql_string(str(path))}, header=true, "
            f"compression='{'gzip' if compressed else 'none'}')")
