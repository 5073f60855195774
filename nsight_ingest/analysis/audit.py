"""How well does a rule set fit a trace: time no rule matched, dead rules, overlapping rules, neighbour decisions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nsight_ingest.analysis import percent, rule_set_block
from nsight_ingest.rules import RuleSet
from nsight_ingest.sqlmodules import Scope
from nsight_ingest.store import Capture
from nsight_ingest.tables import escape, grid, new_console
from nsight_ingest.text import pct

if TYPE_CHECKING:
    from rich.console import Console


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


def print_table(result: dict[str, Any], console: Console | None = None) -> None:
    """The rules audit as text."""
    console = console or new_console(width=150)
    unmatched, other = result["unmatched"], result["other_component"]
    neighbour = pct(result["neighbour_rules"]["percent_of_kernel_time"])
    console.print(escape(f"rules audit {result['source_gpu_trace']}: no rule matched {unmatched['milliseconds']:,.3f}"
                         f" ms ({pct(unmatched['percent_of_kernel_time'])}) in {unmatched['launches']} launches, "
                         f"part of component other ({other['milliseconds']:,.3f} ms, "
                         f"{pct(other['percent_of_kernel_time'])}: the rest a rule gave other); neighbour rules "
                         f"decided {neighbour} of the time"), highlight=False)
    table = grid(title="top kernels no rule matched")
    for column in ("ms", "launches", "name"):
        table.add_column(column, justify="right" if column != "name" else "left", overflow="fold")
    for name in unmatched["top_names"]:
        table.add_row(f"{name['milliseconds']:,.3f}", str(name["launches"]), escape(name["name"][:110]))
    console.print(table)
    families = grid(title="time no rule matched by kernel family")
    for column in ("family", "ms", "% unmatched", "launches"):
        families.add_column(column, justify="left" if column == "family" else "right")
    for name, f in unmatched["by_family"].items():
        families.add_row(name, f"{f['milliseconds']:,.3f}", pct(f["percent_of_unmatched"]), str(f["launches"]))
    console.print(families)
    # a name rule matches names, a context rule contexts; either wins contexts (a name's launches by neighbours)
    rules = grid(title="rule files")
    for column in ("rule file", "kind", "names or contexts matched", "contexts won"):
        rules.add_column(column)
    for rule in result["rules"]:
        rules.add_row(rule["rule_file"], "context" if rule["context_rule"] else "name", str(rule["matches"]),
                      str(rule["contexts_won"]))
    console.print(rules)
    console.print(f"dead rules: {', '.join(result['dead_rules']) or '-'}", highlight=False)
    for overlap in result["overlapping_names"]:
        matched = ", ".join(f"{m['rule_file']}:{m['component']}@{m['priority']}" for m in overlap["matches"])
        console.print(escape(f"overlap: {overlap['name'][:80]} -> {overlap['winner_component']}"
                             f" ({overlap['winner_rule_file']}); matched by {matched}"), highlight=False)
