"""Render analysis results: JSON for machines (here), text tables (tables), the HTML pages (capture_page,
nightly_page) and the timeline file (timeline)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from nsight_ingest import cache
from nsight_ingest.errors import InputError


def to_json(result: Any) -> str:
    """Stable, indented JSON; a number that is not finite (NaN, infinity), which JSON cannot hold, is null; a date
    is its ISO text."""
    return json.dumps(_finite(result), indent=2, allow_nan=False, default=str)


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


def write_whole(path: Path, text: str) -> None:
    """Write `text` to `path` through a temporary file renamed over it: a full disk or a crash leaves the old file
    or none, never a cut one."""
    with cache.whole(path) as written:
        written.write_text(text, encoding="utf-8")


# Files an output never replaces, wherever they lie: a capture's exports and reports, and stores.
CAPTURE_FILES = (".csv", ".csv.gz", ".sqlite", ".nsys-rep", ".qdrep", ".ncu-rep", ".parquet", ".arrow", ".feather",
                 ".duckdb", ".db")


def output_checked(path: Path, protected: list[str], what: str, flag: str = "-o") -> None:
    """Refuse an output path (given with `flag`) that names no file (a folder, '-'), lies in no folder, is one of
    the `protected` files (the inputs, the store) or in one of their folders (an export folder), or is an existing
    capture's or store's file (a sibling report of the capture): `what` would be written over it."""
    if not path.name or path.name in (".", "..", "-") or path.is_dir():
        raise InputError(f"{flag} {str(path)!r}: name the {what} file to write (a folder or '-' is none)")
    if not path.parent.is_dir():
        raise InputError(f"{flag} {path}: no folder {path.parent}; create it first")
    target = path.resolve()
    for other in (Path(p).resolve() for p in protected):
        if target == other or (other.is_dir() and other in target.parents):
            raise InputError(f"{flag} {path}: that is an input or the store of the {what}, or lies in an input "
                             f"folder; write it elsewhere")
    if path.exists() and path.name.lower().endswith(CAPTURE_FILES):
        raise InputError(f"{flag} {path}: that is a capture's or a store's file; write the {what} elsewhere")
