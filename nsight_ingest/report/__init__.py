"""Render analysis results: JSON for machines (here), text tables (tables) and the nightly page (nightly_page)."""

from __future__ import annotations

import json
from typing import Any


def to_json(result: Any) -> str:
    """Stable, indented JSON."""
    return json.dumps(result, indent=2)
