"""Readers turn one export (a file or an export directory) into normalized rows (as DuckDB SELECTs); they never
analyse."""

from __future__ import annotations

from pathlib import Path

from nsight_ingest.readers.rows import Insert, Load, Staged

__all__ = ["Insert", "Load", "Staged", "load"]


def load(path: Path, form: str, report_type: str) -> Load:
    """The Load for `path`, an input of `form` (see readers.forms), read as `report_type` (an nsys report or an ncu
    page); an nsys export gives every report it holds."""
    if form != "csv":
        from nsight_ingest.readers import export

        return export.load(path, form)
    if report_type.startswith("ncu_"):
        from nsight_ingest.readers import ncu

        return ncu.load(path, report_type)
    from nsight_ingest.readers import nsys

    return nsys.load(path, report_type)
