"""What to fix first: the finding rules (nsight_ingest.finding_rules) run over the evidence of one capture or window,
and the findings of several windows ranked together."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nsight_ingest import finding_rules
from nsight_ingest.analysis import inputs_block, percent, rule_set_block, whatif
from nsight_ingest.analysis.ncu import Thresholds
from nsight_ingest.errors import EmptyScope
from nsight_ingest.sqlmodules import Scope, ScopeContext
from nsight_ingest.store import Capture
from nsight_ingest.tables import escape, grid, new_console
from nsight_ingest.text import kernel_labels, ms, pct, us

if TYPE_CHECKING:
    import pyarrow as pa
    from rich.console import Console

TOP_KERNELS = 50  # kernel names listed in the top_kernels relation (per device and for the scope)
LARGEST_GAPS = 10  # gaps listed in largest_gaps, each with the 5 API calls overlapping it longest
GAP_CALLS = 5


@dataclass(frozen=True)
class Evidence:
    """A relation finding rules read: the rows of a query module (its header documents the columns), with the
    window's `nvtx_group` (NULL for a whole capture) as first column."""

    relation: str
    module: str
    params: dict[str, Any] = field(default_factory=dict)


EVIDENCE = (
    Evidence("summary", "scope.summary"),
    Evidence("idle_causes", "idle.causes"),
    Evidence("families", "classify.families"),
    Evidence("top_kernels", "classify.top_kernels", {"top": TOP_KERNELS}),
    Evidence("communication", "communication.overlap"),
    Evidence("communication_arrivals", "communication.arrivals"),
    Evidence("largest_gaps", "launches.largest_gaps", {"top": LARGEST_GAPS, "calls": GAP_CALLS}),
    Evidence("launches_by_family", "launches.by_family"),
    Evidence("short_kernels", "launches.short_kernels"),
    Evidence("sync_calls", "idle.sync_calls"),
    Evidence("graph_launches", "scope.graph_launches"),
    Evidence("host_calls", "scope.host_calls"),
    Evidence("memory_transfers", "memory.transfers"),
    Evidence("ncu_verdicts", "ncu.by_kernel"),
)

@dataclass(frozen=True)
class OptionalInput:
    """An input a capture may lack: its role, what it is, the evidence (relations and columns) that is empty or NULL
    without it (a rule reading any is skipped when it is missing), the evidence it also informs when it is there (a
    rule reading any relied on it), and the input it stands in for."""

    role: str
    description: str
    needed_by: frozenset[str]
    informs: frozenset[str] = frozenset()
    stands_in_for: str | None = None  # the role of the input it replaces: not relied on when that one is there

    def read_by(self, identifiers: set[str]) -> bool:
        """True when a rule reading these identifiers relies on this input."""
        return bool(identifiers & (self.needed_by | self.informs))


LAUNCH_ROWS = OptionalInput("kernel_exec_trace", "the kernels' launch rows (a cuda_kern_exec_trace, or an nsys "
                            "export with CUDA API calls)",
                            frozenset({"cpu_launch_ns", "short_kernels", "launches_by_family"}),
                            frozenset({"graph_kernels"}))
API_CALLS = OptionalInput("api_trace", "the CUDA API calls (a cuda_api_trace, or an nsys export with CUDA API calls)",
                          frozenset({"synchronization_ns", "sync_calls", "api_calls", "api_call_count",
                                     "untraced_graph_ns"}),
                          frozenset({"graph_launches", "untraced_graph_launches", "host_calls"}))
API_SUMMARY = OptionalInput("api_summary", "the CUDA API calls per function (an nsys stats cuda_api_sum)", frozenset(),
                            frozenset({"host_calls"}), stands_in_for="api_trace")
NCU = OptionalInput("ncu", "Nsight Compute metrics of the same workload (--ncu)", frozenset({"ncu_verdicts"}))


def optional_inputs(capture: Capture) -> dict[OptionalInput, bool]:
    """Each input a capture may lack, and whether this one has it."""
    return {LAUNCH_ROWS: capture.kern_exec is not None, API_CALLS: capture.api is not None,
            API_SUMMARY: capture.api_summary is not None, NCU: bool(capture.ncu)}


def evidence(scope: Scope, capture: Capture, options: dict[str, Any]) -> dict[str, pa.Table]:
    """Every evidence relation of the scope, by name."""
    import pyarrow as pa

    window = scope.context.window
    values = {"ncu_traces": [i.trace_id for i in capture.ncu], **Thresholds.of(options).params()}
    relations = {}
    for item in EVIDENCE:
        rows = scope.table(item.module, **{**values, **item.params})
        group = pa.array([window.label if window else None] * rows.num_rows, pa.string())
        relations[item.relation] = rows.add_column(0, "nvtx_group", group)
    return relations


def answer(scope: Scope, capture: Capture, options: dict[str, Any]) -> dict[str, Any]:
    """The findings of one capture (or window), ranked by gain ceiling, with those the pack could not look for."""
    window = scope.context.window
    relations = evidence(scope, capture, options)
    totals = [row for row in relations["summary"].to_pylist() if row["device"] is None]
    if not totals or not totals[0]["gpu_operation_count"]:
        raise EmptyScope(f"{window.label if window else capture.gpu_trace.path}: no GPU operations in this scope")
    span = int(totals[0]["gpu_span_ns"])
    found, skipped = finding_rules.run(scope.context.finding_set, relations, optional_inputs(capture), span)
    devices = sum(row["device"] is not None for row in relations["summary"].to_pylist())
    if options.get("replay_ceilings", True) and devices == 1:
        found = replay_ceilings(scope, found, span)
    if window:  # each finding says which window it is in, even when its rule's scope leaves that out
        found = [{**f, "scope": {"nvtx_group": window.label, **f["scope"]}} for f in found]
    return {"findings": found, "skipped": skipped, "gpu_span_ns": span,
            **({"window": window.label} if window else {}),
            "rule_set": finding_set_block(scope.context), "inputs": inputs_block(capture.roles())}


def replay_ceilings(scope: Scope, found: list[dict[str, Any]], span: int) -> list[dict[str, Any]]:
    """The findings with their gain ceilings from a replay of the dependency graph without what they name, where
    one can (whatif.FINDING_EDITS: a finding of the whole scope, not an NVTX group's; the scope has one device, as
    the replay edits them all), each saying which ceiling it has; ranked again."""
    whole = [finding["id"] for finding in found if "nvtx_group" not in finding["scope"]]
    gains = {finding: whatif.finding_gain(scope, finding) for finding in dict.fromkeys(whole)}  # a replay per kind
    ceilings = []
    for finding in found:
        gain = None if "nvtx_group" in finding["scope"] else gains[finding["id"]]
        ceilings.append({**finding, "gain_ceiling_from": "heuristic"} if gain is None else {
            **finding, "gain_ceiling_ns": gain, "gain_ceiling_percent_of_span": percent(gain, span),
            "gain_ceiling_from": "replay", "heuristic_gain_ceiling_ns": finding["gain_ceiling_ns"]})
    return finding_rules.rank(ceilings)


def finding_set_block(context: ScopeContext) -> dict[str, Any]:
    """Which rules decided the findings: the pack's folder, version and files, and the classification rules."""
    finding_set = context.finding_set
    return {"path": str(finding_set.directory), "version": finding_set.version,
            "files": [rule.path.name for rule in finding_set.files], "classification": rule_set_block(context)}


def merged(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """The findings of several windows as one answer, ranked together, with each window's span."""
    first = parts[0]  # the inputs a rule lacks are the capture's: every window skips the same
    return {"findings": finding_rules.rank([f for part in parts for f in part["findings"]]),
            "skipped": first["skipped"], "window_spans_ns": {part["window"]: part["gpu_span_ns"] for part in parts},
            "rule_set": first["rule_set"], "inputs": first["inputs"]}


def gated(block: dict[str, Any], fail_on: str) -> dict[str, Any]:
    """A findings answer with its --fail-on gate: failed when a finding is as severe as `fail_on` or more."""
    severe = finding_rules.SEVERITIES[:finding_rules.SEVERITIES.index(fail_on) + 1]
    count = sum(finding["severity"] in severe for finding in block["findings"])
    return {**block, "gate": {"fail_on": fail_on, "failed": count > 0, "findings_at_or_above": count}}


def _evidence_value(key: str, value: Any) -> str:
    """One evidence entry for people: times in ms, shares in %, a list by its first three items, an object by its
    entries; control characters shown as escapes."""
    if isinstance(value, dict):
        return _evidence_item(value)
    if isinstance(value, list):
        shown = [_evidence_item(item) for item in value[:3]]
        return "; ".join(shown) + (f" (+{len(value) - 3} more)" if len(value) > 3 else "")
    if isinstance(value, str):
        return finding_rules.CONTROL.sub(lambda m: repr(m.group())[1:-1], value)
    if isinstance(value, bool) or value is None:
        return str(value)
    if key.endswith("_ns"):  # under a millisecond in microseconds, so that short times keep their digits
        return f"{us(value)} us" if abs(value) < 1e6 else f"{ms(value)} ms"
    if key.endswith(("_pct", "_percent")) or "_percent_" in key:
        return pct(value)
    return f"{value:,}" if isinstance(value, int) else f"{value:,.3f}"


def _evidence_item(item: Any) -> str:
    """An item of an evidence list: its first text (a name) with its other entries in brackets."""
    if not isinstance(item, dict):
        return str(item)
    if "short_name" in item:  # a kernel by its short name: its full name and key stay in the JSON
        item = {key: value for key, value in item.items() if key not in ("name", "kernel_key")}
    label = next((key for key, value in item.items() if isinstance(value, str)), None)
    rest = ", ".join(f"{key} {_evidence_value(key, value)}" for key, value in item.items()
                     if key != label and value is not None)
    return f"{_evidence_value(label, item[label]) if label else ''} ({rest})".strip()


def evidence_text(evidence: dict[str, Any]) -> str:
    """A finding's evidence on one line; the span it is measured against and a kernel's full name or key (its scope
    names it) left out."""
    return "; ".join(f"{key} {_evidence_value(key, value)}" for key, value in evidence.items()
                     if key not in ("gpu_span_ns", "kernel_key", "name"))


def _scope_texts(findings: list[dict[str, Any]]) -> list[str]:
    """Each finding's scope on one line, a kernel by its table label (kernel_labels)."""
    kernels = [f["scope"].get("kernel") for f in findings]
    named = [(k, f["evidence"].get("short_name") or k) for k, f in zip(kernels, findings, strict=True) if k]
    labels = iter(kernel_labels([k for k, _ in named], [s for _, s in named]))
    return [", ".join(f"{key} {next(labels) if key == 'kernel' else _evidence_value(key, value)}"
                      for key, value in f["scope"].items()) for f in findings]


def print_table(result: dict[str, Any], console: Console | None = None) -> None:
    """Findings, one row each in rank order (severity, title, gain ceiling, scope, evidence), then what was skipped
    and the gate."""
    console = console or new_console(width=180)
    findings = result["findings"]
    if findings:
        table = grid(title=f"findings ({len(findings)}, ranked by gain ceiling; ceilings can overlap, do not add "
                             f"them; r: from a replay of the dependency graph without what the finding names)")
        for column, justify in (("#", "right"), ("severity", "left"), ("finding", "left"), ("ceiling ms", "right"),
                                ("% span", "right"), ("scope", "left"), ("evidence", "left")):
            table.add_column(column, justify=justify, overflow="fold")
        for number, (finding, scope) in enumerate(zip(findings, _scope_texts(findings), strict=True), 1):
            table.add_row(str(number), finding["severity"], escape(finding["title"]),
                          ms(finding["gain_ceiling_ns"]) + (" r" if finding.get("gain_ceiling_from") == "replay"
                                                            else ""),
                          pct(finding["gain_ceiling_percent_of_span"]),
                          escape(scope), escape(evidence_text(finding["evidence"])))
        console.print(table)
    else:
        console.print(f"no findings ({len(result['rule_set']['files'])} rule files; {len(result['skipped'])} "
                      f"findings skipped)", highlight=False)
    for line in dict.fromkeys(f"{f['id']}: {f['suggestion']}" + (f" (caveat: {f['caveat']})" if f["caveat"] else "")
                              for f in findings):
        console.print(escape(line), highlight=False, soft_wrap=True)
    for skipped in result["skipped"]:
        console.print(escape(f"skipped {skipped['id']} ({skipped['rule_file']}): {skipped['reason']}"),
                      highlight=False, soft_wrap=True)
    gate = result.get("gate")
    if gate:
        verdict = "FAILED" if gate["failed"] else "passed"
        console.print(f"gate --fail-on {gate['fail_on']}: {verdict} ({gate['findings_at_or_above']} at or above)",
                      highlight=False)
    console.print(escape(f"finding rules {result['rule_set']['version']} ({result['rule_set']['path']})"),
                  highlight=False, soft_wrap=True)
