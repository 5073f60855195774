"""Analyses shape the rows of SQL modules (sql/) into JSON-ready answers, each from a sqlmodules.Scope; beside its
shaper, each module's `print_table` prints that answer as text tables for people."""

from __future__ import annotations

from typing import Any

from nsight_ingest.rules import RuleSet
from nsight_ingest.sqlmodules import Scope, ScopeContext
from nsight_ingest.store import Ingested
from nsight_ingest.text import ms

# The percentile keys of every duration distribution, as the ns_percentiles macro (sql/common) names them.
PERCENTILE_KEYS = ("p50_ns", "p90_ns", "p99_ns", "max_ns")


def percentile_cells(block: dict[str, Any] | None) -> list[str]:
    """A distribution's percentiles in ms, for a table row ('-' for each when there is none)."""
    block = block or {}
    return [ms(block.get(k)) for k in PERCENTILE_KEYS]


def percent(part: Any, whole: Any) -> float | None:
    """100 x part / whole, or None when the whole is zero or unknown."""
    return 100.0 * float(part) / float(whole) if whole else None


def inputs_block(files: list[tuple[Ingested, str]]) -> list[dict[str, Any]]:
    """`{path, role, sha256, rows}` per (input file, role), and content_sha256 for gzip."""
    return [
        {"path": i.path, "role": role, "sha256": i.sha256, "rows": i.rows}
        | ({"content_sha256": i.content_sha256} if i.content_sha256 else {})
        for i, role in files
    ]


def rules_block(rule_set: RuleSet) -> dict[str, Any]:
    """A rule set's folder, version hash and files."""
    return {"path": str(rule_set.directory), "version": rule_set.version,
            "files": [rule.path.name for rule in rule_set.files]}


def rule_set_block(context: ScopeContext) -> dict[str, Any]:
    """Which rules decided the classes (a scope's context holds them): the component rules' folder, version hash
    and files, the same of the family rules under `families`."""
    return {**rules_block(context.rule_set), "families": rules_block(context.family_set)}


def nvtx_figures(scope: Scope) -> dict[str, Any]:
    """An NVTX window's ranges: how many, the first one's start, their summed time, and how busy the window's
    kernels kept the GPU in them (their union clipped to the ranges, over the time the ranges cover)."""
    row = scope.row("scope.window_busy")
    return {"ranges": int(row["ranges"]), "range_start_ns": int(row["range_start_ns"]),
            "range_time_ns": int(row["range_time_ns"]),
            "busy_percent": percent(row["kernel_union_ns"], row["range_union_ns"])}


def percentiles(row: dict[str, Any] | None) -> dict[str, float | None]:
    """The percentile columns of a row as a JSON block (None when there were no values)."""
    row = row or {}
    return {key: None if row.get(key) is None else float(row[key]) for key in PERCENTILE_KEYS}
