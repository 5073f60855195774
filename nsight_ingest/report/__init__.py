"""Render analysis results: JSON for machines (here), text tables (tables) and the nightly page (nightly_page)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from nsight_ingest import cache


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
