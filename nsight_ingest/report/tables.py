"""Analysis results as text tables for people (rich, imported only when a table is printed)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nsight_ingest.analysis import PERCENTILE_KEYS, percent
from nsight_ingest.analysis.ncu import DRAM_THROUGHPUT, L2_HIT_RATE, MEMORY_THROUGHPUT, SM_THROUGHPUT
from nsight_ingest.finding_rules import CONTROL
from nsight_ingest.report.text import IDLE_CAUSE_LABELS, fixed, kernel_labels, ms, pct, us

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table


def escape(text: str) -> str:
    """`text` with rich markup escaped (rich is imported only when a table is printed: JSON output starts faster)."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


def _table(**options: Any) -> Table:
    from rich.table import Table

    return Table(show_edge=False, **options)


def _console(**options: Any) -> Console:
    from rich.console import Console

    return Console(**options)


def _summary_lines(title: str, s: dict[str, Any]) -> list[str]:
    gaps = s["launch_gaps"]
    lines = [
        f"[bold]{escape(title)}[/bold]",
        f"GPU span {ms(s['gpu_span_ns'])} ms | {s['gpu_operation_count']} GPU ops | {s['kernel_count']} kernels"
        f" | kernel time {ms(s['kernel_time_ns'])} ms ({pct(s['kernel_busy_percent_of_span'])} busy summed,"
        f" {pct(s['kernel_union_percent_of_span'])} with a kernel running)",
        f"Launch gaps: {gaps['positive_gap_count']} positive, total {ms(gaps['total_ns'])} ms,"
        f" average {ms(gaps['average_ns'])} ms, max {ms(gaps['maximum_ns'])} ms",
        idle_line(s["idle"], len(s.get("devices") or {})),
    ]
    if s["communication"] is not None:
        lines.append(communication_line(s["communication"]))
    overlap = s["cpu_gpu_overlap"]
    if overlap is None:
        lines.append("CPU-GPU launch overlap: - (no kern_exec trace)")
    else:
        lines.append(
            f"CPU-GPU launch overlap: {ms(overlap['launch_api_gpu_overlap_ns'])} ms of"
            f" {ms(overlap['launch_api_union_ns'])} ms launch-API union"
            f" ({pct(overlap['launch_api_overlap_percent'])})"
        )
    return lines


def _components_table(components: dict[str, Any], policy: dict[str, str] | None) -> Table:
    table = _table()
    table.add_column("component")
    table.add_column("ms", justify="right")
    table.add_column("% kernel time", justify="right")
    table.add_column("launches", justify="right")
    if policy is not None:
        table.add_column("policy", overflow="fold")
    for name, c in components.items():
        cells = [escape(name), f"{c['milliseconds']:,.3f}", pct(c["percent_of_kernel_time"]), str(c["launches"])]
        table.add_row(*cells, *([policy.get(name, "")] if policy is not None else []))
        for sub, s in c.get("sub_components", {}).items():
            share = percent(s["milliseconds"], c["milliseconds"])
            table.add_row(f"  {sub}", f"{s['milliseconds']:,.3f}", f"({pct(share)})", str(s["launches"]),
                          *([""] if policy is not None else []))
    return table


def _ncu_table(components: dict[str, Any]) -> Table:
    """Per component with ncu data: how much of its kernel time ncu profiled, split by bound verdict, and the
    time-weighted mean throughputs of the profiled part."""
    table = _table(title="ncu verdicts by component (% of the component's kernel time)")
    for column in ("component", "profiled", "compute-bound", "memory-bound", "latency-bound", "balanced",
                   "SM throughput %", "memory throughput %"):
        table.add_column(column, justify="left" if column == "component" else "right")
    for name, c in components.items():
        if c.get("ncu"):
            n = c["ncu"]
            table.add_row(escape(name), *(pct(n[f"{key}_percent"]) for key in (
                "profiled", "compute_bound", "memory_bound", "latency_bound", "balanced")),
                *(fixed(n[key]) for key in ("sm_throughput_pct", "memory_throughput_pct")))
    return table


def _families_table(families: dict[str, Any]) -> Table:
    """The family split, families without kernels left out."""
    table = _table(title="kernel families")
    for column in ("family", "ms", "% kernel time", "launches"):
        table.add_column(column, justify="left" if column == "family" else "right")
    for name, f in families.items():
        if f["launches"]:
            table.add_row(name, f"{f['milliseconds']:,.3f}", pct(f["percent_of_kernel_time"]), str(f["launches"]))
    return table


def _top_kernels_table(kernels: list[dict[str, Any]]) -> Table:
    table = _table(title="top kernels")
    for column in ("#", "kernel", "family", "component", "ms", "%", "launches", "mean us", "median us", "max us"):
        table.add_column(column, justify="left" if column in ("kernel", "family", "component") else "right",
                         overflow="fold", min_width=40 if column == "kernel" else None)
    labels = kernel_labels([k["name"] for k in kernels], [k["short_name"] for k in kernels])
    for rank, (label, k) in enumerate(zip(labels, kernels, strict=True), start=1):
        split = "" if len(k["components"]) == 1 else f" (+{len(k['components']) - 1})"
        table.add_row(str(rank), escape(label), k["family"], escape(k["component"] + split), ms(k["total_ns"]),
                      pct(k["percent_of_kernel_time"]), str(k["launches"]), f"{k['mean_ns'] / 1e3:,.2f}",
                      f"{k['median_ns'] / 1e3:,.2f}", f"{k['max_ns'] / 1e3:,.2f}")
    return table


def idle_line(idle: dict[str, Any], devices: int = 1) -> str:
    """No kernel running: the time and its causes ('-' for a cause the capture cannot tell)."""
    causes = ", ".join(f"{label} {ms(idle[key])}" for key, label in IDLE_CAUSE_LABELS.items())
    summed = f" (summed over {devices} devices)" if devices > 1 else ""
    return f"No kernel running{summed}: {ms(idle['kernel_idle_ns'])} ms = {causes} ms"


def communication_line(block: dict[str, Any]) -> str:
    """Communication time, overlapped and exposed, and the exposed time of each collective."""
    collectives = ", ".join(f"{name} {ms(c['exposed_ns'])}" for name, c in block["by_collective"].items())
    return (f"Communication: {ms(block['time_ns'])} ms, {ms(block['overlapped_ns'])} ms behind compute"
            f" ({pct(block['overlap_percent'])}), {ms(block['exposed_ns'])} ms exposed"
            + (f" (by collective: {collectives} ms)" if collectives else ""))


def _title(command: str, result: dict[str, Any]) -> str:
    window = f" [{result['window']}]" if "window" in result else ""
    return f"{command} {result['source_gpu_trace']}{window}"


def print_classify(result: dict[str, Any], console: Console | None = None) -> None:
    """The classify summary as text tables, one block per device when there are several."""
    console = console or _console(width=140)
    title = _title("classify", result)
    for line in _summary_lines(title, result):
        console.print(line, highlight=False)
    console.print(_components_table(result["components"], result["classification_policy"]))
    if any(c.get("ncu") for c in result["components"].values()):
        console.print(_ncu_table(result["components"]))
    console.print(_families_table(result["families"]))
    console.print(_top_kernels_table(result["top_kernels"]))
    if len(result["devices"]) > 1:
        for device, summary in result["devices"].items():
            console.print()
            for line in _summary_lines(device, summary):
                console.print(line, highlight=False)
            console.print(_components_table(summary["components"], None))
            console.print(_families_table(summary["families"]))
            console.print(_top_kernels_table(summary["top_kernels"]))
    inputs = ", ".join(
        f"{i['role']}={i['path']} ({i['rows']} rows, sha256 {i['sha256'][:12]})" for i in result["inputs"]
    )
    console.print(escape(f"inputs: {inputs}; rules {result['rule_set']['version']}"), highlight=False,
                  soft_wrap=True)


def print_windows(result: dict[str, Any], console: Console | None = None) -> None:
    """One row per window (--per-nvtx) or group (--by-nvtx): where it starts, its span, kernels, kernel time, how
    busy the GPU was in its ranges and its largest gap."""
    console = console or _console(width=150)
    grouped = "groups" in result
    parts = result["groups"] if grouped else {p.get("window"): p for p in result["windows"]}
    title = f"--by-nvtx {result['by_nvtx']}" if grouped else f"--per-nvtx {result['per_nvtx']}"
    table = _table(title=escape(f"{title}: {len(parts)} {'groups' if grouped else 'windows'}"))
    for column in ("group" if grouped else "window", "ranges", "start ms", "range ms", "span ms", "kernels",
                   "kernel ms", "busy %", "largest gap ms"):
        table.add_column(column, justify="left" if column in ("group", "window") else "right", overflow="fold")
    for label, p in parts.items():
        gap = (p.get("launch_gaps") or {}).get("maximum_ns", (p.get("gaps") or {}).get("max_ns"))
        table.add_row(escape(str(label)), str(p.get("ranges", "-")), ms(p.get("range_start_ns")),
                      ms(p.get("range_time_ns")), ms(p.get("gpu_span_ns")), str(p.get("kernel_count", "-")),
                      ms(p.get("kernel_time_ns")), pct(p.get("busy_percent")), ms(gap))
    console.print(table)


def print_rows(columns: list[str], rows: list[tuple], console: Console | None = None) -> None:
    """A query result as a text table."""
    console = console or _console(width=200)
    table = _table()
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*("NULL" if v is None else escape(str(v)) for v in row))
    console.print(table)


def _percentile_cells(block: dict[str, Any] | None) -> list[str]:
    block = block or {}
    return [ms(block.get(k)) for k in PERCENTILE_KEYS]


def print_launches(result: dict[str, Any], console: Console | None = None) -> None:
    """The launch analysis as text tables."""
    console = console or _console(width=160)
    console.print(f"[bold]{escape(_title('launches', result))}[/bold]", highlight=False)
    gaps = result["gaps"]
    console.print(f"GPU idle gaps between kernels: {gaps['positive_gap_count']} positive, total {ms(gaps['total_ns'])}"
                  f" ms; p50/p90/p99/max {' / '.join(_percentile_cells(gaps))} ms", highlight=False)
    console.print(idle_line(result["idle"], len(result.get("devices") or {})), highlight=False)
    if result.get("launch_api_calls") is not None:
        calls = ", ".join(f"{api} {n}" for api, n in result["launch_api_calls"].items())
        console.print(f"Launch calls: {result['runtime_kernel_launches']} ({calls}); graph kernels"
                      f" {result['graph_kernels']}; kernels without launch row {result['kernels_without_launch_row']}",
                      highlight=False)
        console.print(f"CPU-starved kernels (launch call ended after the GPU went idle): "
                      f"{pct(result['cpu_starved_kernel_percent'])} of {result['kernels_considered']}",
                      highlight=False)
        latency = _table(title="launch call duration (ms)")
        for column in ("api", "calls", "p50", "p90", "p99", "max"):
            latency.add_column(column, justify="left" if column == "api" else "right")
        for api, block in result["api_duration_ns"].items():
            latency.add_row(api, str(block["calls"]), *_percentile_cells(block))
        queue = result["queue_delay_ns"]
        latency.add_row("queue delay", f"{queue['queued_kernels']} queued", *_percentile_cells(queue))
        console.print(latency)
    largest = _table(title="largest gaps")
    for column in ("gap ms", "device", "stream", "cause", "before", "after", "CPU calls in progress (ms in the gap)"):
        largest.add_column(column, overflow="fold", justify="right" if column in ("gap ms", "stream") else "left")
    gaps = result["largest_gaps"]
    labels = kernel_labels([g[side] for g in gaps for side in ("before", "after")],
                           [g[f"{side}_short_name"] for g in gaps for side in ("before", "after")])
    for number, gap in enumerate(gaps):
        calls = ", ".join(f"{c['name']} {ms(c['overlap_ns'])}" for c in gap["api_calls"])
        more = gap["api_call_count"] - len(gap["api_calls"])
        largest.add_row(ms(gap["gap_ns"]), escape(gap["device"]), str(gap["stream_id"]),
                        IDLE_CAUSE_LABELS.get(f"{gap['idle_cause']}_ns", "-"),
                        escape(f"[{gap['before_component']}] {labels[2 * number]}"),
                        escape(f"[{gap['after_component']}] {labels[2 * number + 1]}"),
                        escape(calls + (f" (+{more} more)" if more > 0 else "")) or "-")
    console.print(largest)
    if result.get("top_kernels"):  # an NVTX window's kernels
        console.print(_top_kernels_table(result["top_kernels"]))
    for axis in ("component", "family"):
        pairs = _table(title=f"idle time by {axis} pair")
        for column in ("before -> after", "gaps", "total ms"):
            pairs.add_column(column, justify="left" if column.startswith("before") else "right")
        for pair in result[f"gaps_by_{axis}_pair"][:15]:
            pairs.add_row(f"{pair[f'before_{axis}']} -> {pair[f'after_{axis}']}", str(pair["gaps"]),
                          ms(pair["total_ns"]))
        console.print(pairs)
    if result["by_family"]:
        families = _table(title="launch calls and queue delay by family (us)")
        for column in ("family", "launches", "calls", "call total", "call p50", "call p90", "call max", "queued",
                       "queue total", "queue p50", "queue p90", "queue max"):
            families.add_column(column, justify="left" if column == "family" else "right")
        for name, f in result["by_family"].items():
            call, queue = f["api_duration_ns"], f["queue_delay_ns"]
            families.add_row(name, str(f["launches"]), str(f["calls"]), us(call["total_ns"]),
                             *(us(call[k]) for k in ("p50_ns", "p90_ns", "max_ns")), str(queue["queued_kernels"]),
                             us(queue["total_ns"]), *(us(queue[k]) for k in ("p50_ns", "p90_ns", "max_ns")))
        console.print(families)


def print_queue_delay(result: dict[str, Any], console: Console | None = None) -> None:
    """The queue-delay statistics as one line."""
    console = console or _console(width=140)
    console.print(f"[bold]{escape(_title('queue-delay', result))}[/bold]", highlight=False)
    queue = result["queue_delay_ns"]
    if queue is None:
        console.print("queue delay: - (no kern_exec trace)", highlight=False)
        return
    console.print(f"{queue['queued_kernels']} kernels queued ({queue['not_queued_kernels']} not), total"
                  f" {ms(queue['total_ns'])} ms; p50/p90/p99/max {' / '.join(_percentile_cells(queue))} ms",
                  highlight=False)


def print_timeline(result: dict[str, Any], console: Console | None = None) -> None:
    """What a timeline file holds: its tracks and events, and where it was cut."""
    console = console or _console(width=140)
    console.print(f"[bold]timeline[/bold] {escape(result['output'])} ({result['format']}, {result['bytes']:,} bytes"
                  f"{', ' + escape(result['window']) if result['window'] else ''})", highlight=False)
    table = _table()
    table.add_column("written")
    table.add_column("count", justify="right")
    table.add_row("processes (GPUs and CPU processes)", f"{result['processes']:,}")
    table.add_row("tracks", f"{result['tracks']:,}")
    for kind, count in result["events"].items():
        table.add_row(kind.replace("_", " "), f"{count:,}")
    console.print(table)
    if result["cut_at_ns"] is not None:
        console.print(f"cut at {result['cut_at_ns']:,} ns: later events are left out", highlight=False)
    if result["time_offset_ns"]:
        console.print(f"times shifted by {result['time_offset_ns']:,} ns (the file's time starts at 0)",
                      highlight=False)


def print_report(result: dict[str, Any], console: Console | None = None) -> None:
    """What a report page holds: where it is, its sections, and the inputs it was made from."""
    console = console or _console(width=140)
    console.print(escape(f"report {result['output']}: {result['bytes']:,} bytes, {result['charts']} charts"),
                  highlight=False)
    console.print(escape(f"sections: {', '.join(result['sections'])}"), highlight=False)
    if result["window"]:
        console.print(escape(f"window: {result['window']}"), highlight=False)
    if result["nvtx_groups"]:
        console.print(escape(f"NVTX groups: {', '.join(result['nvtx_groups'])}"), highlight=False)
    for i in result["inputs"]:
        console.print(escape(f"{i['role']}: {i['path']} ({i['rows']:,} rows, sha256 {i['sha256'][:12]})"),
                      highlight=False)


def print_ncu(result: dict[str, Any], console: Console | None = None) -> None:
    """The ncu analysis as a table: one row per profiled launch."""
    console = console or _console(width=170)
    for device in result["devices"]:
        attributes = device["attributes"]
        console.print(escape(f"device {device['device']}: {attributes.get('display_name', '?')}, L2"
                             f" {attributes.get('l2_cache_size', '?')} B, {attributes.get('multiprocessor_count', '?')}"
                             " SMs"), highlight=False)
    table = _table()
    for column in ("id", "kernel", "component", "family", "us", "SM %", "mem %", "DRAM %", "L2 hit %", "verdict"):
        table.add_column(column, justify="left" if column in ("kernel", "component", "family", "verdict")
                         else "right", overflow="fold")

    def metric(kernel: dict[str, Any], *names: str) -> str:
        for name in names:
            value = (kernel["metrics"].get(name) or {}).get("base_value")
            if value is not None:
                return fixed(value)
        return "-"

    labels = kernel_labels([k["name"] for k in result["kernels"]], [k["short_name"] for k in result["kernels"]])
    for label, k in zip(labels, result["kernels"], strict=True):
        duration = fixed(None if k["duration_ns"] is None else k["duration_ns"] / 1e3)
        table.add_row(str(k["id"]), escape(label), k["component"], k["family"], duration,
                      metric(k, SM_THROUGHPUT), metric(k, MEMORY_THROUGHPUT), metric(k, *DRAM_THROUGHPUT),
                      metric(k, L2_HIT_RATE), k["verdict"] or "-")
    console.print(table)
    if result["unknown_units"]:
        units = ", ".join(sorted({u["unit"] for u in result["unknown_units"]}))
        console.print(escape(f"unknown units kept as exported: {units}"), highlight=False)


def _scaled(delta: dict[str, Any], factor: float = 1e-6) -> dict[str, Any]:
    """A delta of nanoseconds in milliseconds (its percent unchanged)."""
    return {**delta, **{k: None if delta[k] is None else delta[k] * factor for k in ("a", "b", "delta")}}


def print_compare(result: dict[str, Any], console: Console | None = None) -> None:
    """Before/after deltas as a table (captures) or a short summary (--abba)."""
    console = console or _console(width=140)
    if "design" in result:
        console.print(f"{result['design']}: {result['observations_per_variant']} updates per variant; before"
                      f" {result['before_seconds_per_update']:.5f} s, after {result['after_seconds_per_update']:.5f}"
                      f" s per update; {result['time_reduction_percent_rounded']}% less time, speedup"
                      f" {result['speedup']:.4f}", highlight=False)
        return
    if "groups" in result:  # --by-nvtx: each group compared on its own
        for part in result["groups"].values():  # each one's title names its window
            console.print()
            print_compare(part, console)
        if "verdict" in result:
            console.print(f"gate over every group: [bold]{result['verdict']}[/bold]", highlight=False)
        return
    console.print(escape(f"compare {result['a']} -> {result['b']}" + (f" [{result['window']}]"
                                                                      if result.get("window") else "")),
                  highlight=False)
    table = _table()
    for column in ("", "before", "after", "delta", "delta %"):
        table.add_column(column, justify="left" if not column else "right")

    def row(label: str, d: dict[str, Any], fmt: str = "{:,.3f}") -> None:
        cells = [fmt.format(d[k]) if d[k] is not None else "-" for k in ("a", "b", "delta")]
        table.add_row(label, *cells, pct(d["delta_percent"]))

    row("kernel time (ms)", result["kernel_time_ms"])
    row("GPU span (ms)", result["gpu_span_ms"])
    row("busy % (summed)", result["kernel_busy_percent"], "{:.2f}")
    row("busy % (a kernel running)", result["kernel_union_percent"], "{:.2f}")
    row("no kernel running (ms)", _scaled(result["idle"]["kernel_idle_ns"]))
    for key, label in IDLE_CAUSE_LABELS.items():
        row(f"  idle: {label} (ms)", _scaled(result["idle"][key]))
    if result["communication"] is not None:
        row("communication exposed (ms)", _scaled(result["communication"]["exposed_ns"]))
        row("communication overlap %", result["communication"]["overlap_percent"], "{:.2f}")
    for name, c in result["components"].items():
        row(f"component {name} (ms)", c["milliseconds"])
    for name, f in result["families"].items():
        if f["launches"]["a"] or f["launches"]["b"]:
            row(f"family {name} (ms)", f["milliseconds"])
    row("launch gaps total (ns)", result["launch_gaps"]["total_ns"], "{:,.0f}")
    row("launch gap p90 (ns)", result["launch_gaps"]["p90_ns"], "{:,.0f}")
    row("launch overlap %", result["launch_overlap_percent"], "{:.2f}")
    console.print(table)
    speedup = "-" if result["speedup"] is None else f"{result['speedup']:.4f}"
    console.print(f"speedup {speedup}; appeared: {', '.join(result['appeared']) or '-'};"
                  f" vanished: {', '.join(result['vanished']) or '-'}", highlight=False)
    kernels = result["kernels"]
    changes = _table(title=f"kernels changed most (of {kernels['changed_count']} changed, "
                           f"{kernels['unchanged_count']} unchanged; matched by {kernels['matched_by']})")
    for column in ("kernel", "family", "ms before", "ms after", "delta ms", "delta %", "launches", "mean us"):
        changes.add_column(column, justify="left" if column in ("kernel", "family") else "right", overflow="fold")
    listed = [*kernels["changed"], *kernels["added"], *kernels["removed"]]
    labels = dict(zip((k["kernel_key"] for k in listed),
                      kernel_labels([k["name"] for k in listed], [k["short_name"] for k in listed]), strict=True))
    for k in kernels["changed"]:
        total, launches, mean = k["total_ns"], k["launches"], k["mean_ns"]
        changes.add_row(escape(labels[k["kernel_key"]]), k["family"], ms(total["a"]), ms(total["b"]),
                        ms(total["delta"]), pct(total["delta_percent"]), f"{launches['a']} -> {launches['b']}",
                        f"{mean['a'] / 1e3:,.2f} -> {mean['b'] / 1e3:,.2f}")
    if kernels["changed"]:
        console.print(changes)
    else:
        console.print(f"kernels: none changed ({kernels['unchanged_count']} unchanged)", highlight=False)
    for title, entries in (("added", kernels["added"]), ("removed", kernels["removed"])):
        if entries:
            shown = ", ".join(f"{labels[k['kernel_key']]} ({ms(k['total_ns'])} ms)" for k in entries[:10])
            more = f" and {len(entries) - 10} more" if len(entries) > 10 else ""
            console.print(escape(f"kernels {title}: {shown}{more}"), highlight=False)
    if "gate" in result:
        g = result["gate"]
        console.print(f"gate: {g['metric']} changed {pct(g['change_percent'])} (worse when {g['worse_when']}), "
                      f"limit {g['fail_above_percent']:g}%: [bold]{g['verdict']}[/bold]", highlight=False)


def print_audit(result: dict[str, Any], console: Console | None = None) -> None:
    """The rules audit as text."""
    console = console or _console(width=150)
    unmatched, other = result["unmatched"], result["other_component"]
    neighbour = pct(result["neighbour_rules"]["percent_of_kernel_time"])
    console.print(escape(f"rules audit {result['source_gpu_trace']}: no rule matched {unmatched['milliseconds']:,.3f}"
                         f" ms ({pct(unmatched['percent_of_kernel_time'])}) in {unmatched['launches']} launches, "
                         f"part of component other ({other['milliseconds']:,.3f} ms, "
                         f"{pct(other['percent_of_kernel_time'])}: the rest a rule gave other); neighbour rules "
                         f"decided {neighbour} of the time"), highlight=False)
    table = _table(title="top kernels no rule matched")
    for column in ("ms", "launches", "name"):
        table.add_column(column, justify="right" if column != "name" else "left", overflow="fold")
    for name in unmatched["top_names"]:
        table.add_row(f"{name['milliseconds']:,.3f}", str(name["launches"]), escape(name["name"][:110]))
    console.print(table)
    families = _table(title="time no rule matched by kernel family")
    for column in ("family", "ms", "% unmatched", "launches"):
        families.add_column(column, justify="left" if column == "family" else "right")
    for name, f in unmatched["by_family"].items():
        families.add_row(name, f"{f['milliseconds']:,.3f}", pct(f["percent_of_unmatched"]), str(f["launches"]))
    console.print(families)
    # a name rule matches names, a context rule contexts; either wins contexts (a name's launches by neighbours)
    rules = _table(title="rule files")
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


def print_ranks(result: dict[str, Any], console: Console | None = None) -> None:
    """The multi-rank summary as text."""
    console = console or _console(width=150)
    console.print(f"aligned span {result['aligned_profile_span_seconds']:.6f} s; all GPUs idle"
                  f" {result['both_gpus_idle_ms']:,.3f} ms ({pct(result['both_gpus_idle_percent_of_aligned_span'])})"
                  f"{'' if result['aligned'] else ' (NOT ALIGNED: ' + result['caveat'] + ')'}", highlight=False)
    table = _table()
    for column in ("rank", "device", "kernels", "NCCL kernels", "NCCL ms", "non-NCCL s", "kernel union %",
                   "comm. ms", "exposed ms", "overlap %", "clock offset ns", "residual ns", "clock"):
        table.add_column(column, justify="left" if column in ("device", "clock") else "right")
    for r in result["ranks"]:
        residual = "-" if r["clock_offset_residual_ns"] is None else f"{r['clock_offset_residual_ns']:,.0f}"
        comm = r["communication"] or {}
        table.add_row(str(r["rank"]), escape(r["device"]), str(r["kernel_count"]), str(r["nccl_kernel_count"]),
                      f"{r['nccl_kernel_ms']:,.3f}", f"{r['non_nccl_kernel_seconds']:.6f}",
                      pct(r["kernel_union_percent"]), ms(comm.get("time_ns")), ms(comm.get("exposed_ns")),
                      pct(comm.get("overlap_percent")), f"{r['clock_offset_ns']:,}", residual, r["clock"])
    console.print(table)
    collectives = _table(title="collectives (matched by order across ranks)")
    for column in ("collective", "instances", "skew total ms", "skew max ms", "waiting rank", "late rank",
                   "wait ms by rank"):
        collectives.add_column(column)
    for name, c in result["collectives"].items():
        waits = ", ".join(f"{rank}: {ms:,.3f}" for rank, ms in c["wait_ms_by_rank"].items())
        collectives.add_row(name, str(c["instances"]), f"{c['skew_total_ms']:,.3f}", f"{c['skew_max_ms']:,.3f}",
                            str(c["waiting_rank"]), str(c["late_rank"]), waits)
    console.print(collectives)


def _evidence_value(key: str, value: Any) -> str:
    """One evidence entry for people: times in ms, shares in %, a list by its first three items, an object by its
    entries; control characters shown as escapes."""
    if isinstance(value, dict):
        return _evidence_item(value)
    if isinstance(value, list):
        shown = [_evidence_item(item) for item in value[:3]]
        return "; ".join(shown) + (f" (+{len(value) - 3} more)" if len(value) > 3 else "")
    if isinstance(value, str):
        return CONTROL.sub(lambda m: repr(m.group())[1:-1], value)
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


def print_findings(result: dict[str, Any], console: Console | None = None) -> None:
    """Findings, one row each in rank order (severity, title, gain ceiling, scope, evidence), then what was skipped
    and the gate."""
    console = console or _console(width=180)
    findings = result["findings"]
    if findings:
        table = _table(title=f"findings ({len(findings)}, ranked by gain ceiling; ceilings can overlap, do not add "
                             f"them)")
        for column, justify in (("#", "right"), ("severity", "left"), ("finding", "left"), ("ceiling ms", "right"),
                                ("% span", "right"), ("scope", "left"), ("evidence", "left")):
            table.add_column(column, justify=justify, overflow="fold")
        for number, (finding, scope) in enumerate(zip(findings, _scope_texts(findings), strict=True), 1):
            table.add_row(str(number), finding["severity"], escape(finding["title"]),
                          ms(finding["gain_ceiling_ns"]), pct(finding["gain_ceiling_percent_of_span"]),
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
