"""How well does a rule set fit a trace: unclassified time, dead rules, overlapping rules, neighbour decisions."""

from __future__ import annotations

from typing import Any

import duckdb

from nsight_ingest.analysis import rule_set_block, run_sql, scope
from nsight_ingest.rules import RuleSet, classify_scope
from nsight_ingest.store import Capture


def audit(con: duckdb.DuckDBPyConnection, capture: Capture, rule_set: RuleSet, top: int = 10) -> dict[str, Any]:
    """The rules audit of one capture."""
    scope.select(con, capture)
    classify_scope(con, rule_set)
    share = run_sql(con, "audit_context_share")[0]
    total_ns = int(share["time_ns"] or 0)
    unclassified = run_sql(con, "audit_unclassified", top=top)
    unmatched_ns = int(unclassified[0]["unmatched_time_ns"]) if unclassified else 0
    hits = {r["rule_file"]: r for r in run_sql(con, "audit_rule_hits")}
    return {
        "source_gpu_trace": capture.gpu_trace.path,
        "unclassified": {
            "milliseconds": unmatched_ns / 1e6,
            "percent_of_kernel_time": 100.0 * unmatched_ns / total_ns if total_ns else None,
            "launches": int(unclassified[0]["unmatched_launches"]) if unclassified else 0,
            "top_names": [{"name": r["name"], "launches": r["launches"], "milliseconds": r["time_ns"] / 1e6}
                          for r in unclassified],
        },
        "rules": [{"rule_file": rule.path.name, "context_rule": rule.by_context,
                   "matches": int(hits.get(rule.path.name, {}).get("matches", 0)),
                   "contexts_won": int(hits.get(rule.path.name, {}).get("contexts_won", 0))}
                  for rule in rule_set.files],
        "dead_rules": [rule.path.name for rule in rule_set.files if rule.path.name not in hits],
        "overlapping_names": run_sql(con, "audit_overlaps"),
        "neighbour_rules": {
            "launches": int(share["launches_by_context"]),
            "milliseconds": int(share["time_by_context_ns"]) / 1e6,
            "percent_of_kernel_time": 100.0 * int(share["time_by_context_ns"]) / total_ns if total_ns else None,
        },
        "rule_set": rule_set_block(rule_set),
    }
