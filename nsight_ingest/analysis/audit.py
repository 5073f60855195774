"""How well does a rule set fit a trace: time no rule matched, dead rules, overlapping rules, neighbour decisions."""

from __future__ import annotations

from typing import Any

from nsight_ingest.analysis import percent, rule_set_block
from nsight_ingest.rules import RuleSet
from nsight_ingest.sqlmodules import Scope
from nsight_ingest.store import Capture


def answer(scope: Scope, capture: Capture, options: dict[str, Any]) -> dict[str, Any]:
    """The rules audit of one capture (options: `top` unmatched names to list)."""
    rule_set: RuleSet = scope.context.rule_set
    share = scope.row("audit.context_share")
    total_ns = int(share["time_ns"] or 0)
    unmatched = scope.rows("audit.unmatched", top=options["top"])
    first = unmatched[0]  # every row carries the totals; a scope without unmatched kernels has one, name NULL
    unmatched_ns, other_ns = int(first["unmatched_time_ns"]), int(first["other_time_ns"])
    hits = {r["rule_file"]: r for r in scope.rows("audit.rule_hits")}
    window = scope.context.window
    return {
        "source_gpu_trace": capture.gpu_trace.path,
        **({"window": window.label} if window else {}),
        "unmatched": {
            "milliseconds": unmatched_ns / 1e6,
            "percent_of_kernel_time": percent(unmatched_ns, total_ns),
            "launches": int(first["unmatched_launches"]),
            "top_names": [{"name": r["name"], "launches": r["launches"], "milliseconds": r["time_ns"] / 1e6}
                          for r in unmatched if r["name"] is not None],
            "by_family": {r["family"]: {"milliseconds": r["time_ns"] / 1e6, "launches": int(r["launches"]),
                                        "percent_of_unmatched": percent(r["time_ns"], unmatched_ns)}
                          for r in scope.rows("audit.unmatched_families")},
        },
        "other_component": {  # classify's component 'other': the unmatched kernels and those a rule gave 'other'
            "milliseconds": other_ns / 1e6,
            "percent_of_kernel_time": percent(other_ns, total_ns),
            "launches": int(first["other_launches"]),
            "unmatched_milliseconds": unmatched_ns / 1e6,
        },
        "rules": [{"rule_file": rule.path.name, "context_rule": rule.by_context,
                   "matches": int(hits.get(rule.path.name, {}).get("matches", 0)),
                   "contexts_won": int(hits.get(rule.path.name, {}).get("contexts_won", 0))}
                  for rule in rule_set.files],
        "dead_rules": [rule.path.name for rule in rule_set.files if rule.path.name not in hits],
        "overlapping_names": scope.rows("audit.overlaps"),
        "neighbour_rules": {
            "launches": int(share["launches_by_context"]),
            "milliseconds": int(share["time_by_context_ns"]) / 1e6,
            "percent_of_kernel_time": percent(share["time_by_context_ns"], total_ns),
        },
        "rule_set": rule_set_block(scope.context),
    }
