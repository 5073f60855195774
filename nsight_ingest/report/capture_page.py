"""The one-capture report: a self-contained HTML page of the report's answer (the classify and launches answers of
one scope and the report's own figures), with plotly charts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from nsight_ingest.analysis import percent
from nsight_ingest.analysis.idle import CAUSES, LACKS
from nsight_ingest.report import html, output_checked, write_whole
from nsight_ingest.report.html import Column, number
from nsight_ingest.text import IDLE_CAUSE_LABELS, counted, duration, fixed, kernel_labels, length, ms, pct, us

NCU_VERDICTS = (("compute_bound", "compute bound", "#1f77b4"), ("memory_bound", "memory bound", "#ff7f0e"),
                ("latency_bound", "latency bound", "#9467bd"), ("balanced", "balanced", "#2ca02c"))


def _bars(shares: dict[str, dict[str, Any]], title: str) -> str:
    """Horizontal bars of the entries with time (ms and % of kernel time), most time on top."""
    import plotly.graph_objects as go

    shown = sorted(((name, e) for name, e in shares.items() if e["launches"]), key=lambda item: item[1]["milliseconds"])
    fig = go.Figure(go.Bar(
        x=[e["milliseconds"] for _, e in shown], y=[name for name, _ in shown], orientation="h",
        text=[f"{e['milliseconds']:,.3f} ms ({pct(e['percent_of_kernel_time'])})" for _, e in shown],
        textposition="auto", customdata=[e["launches"] for _, e in shown],
        hovertemplate="%{y}: %{x:,.3f} ms, %{customdata} launches<extra></extra>"))
    fig.update_layout(xaxis_title="kernel time (ms)", yaxis={"automargin": True})
    return html.figure(fig, title, height=max(260, 60 + 34 * len(shown)))


def _without_time(shares: dict[str, dict[str, Any]], what: str) -> str:
    empty = [name for name, e in shares.items() if not e["launches"]]
    return f'<p class="note">{what} without kernels here: {html.escape(", ".join(empty))}</p>' if empty else ""


def _cards(summary: dict[str, Any], launch: dict[str, Any]) -> str:
    gaps, overlap, idle = summary["launch_gaps"], summary["cpu_gpu_overlap"], summary["idle"]
    devices = len(summary["devices"])
    per = f" ({devices} GPUs: span x {devices})" if devices > 1 else ""
    items = [
        ("GPU span", duration(summary["gpu_span_ns"]), "first GPU operation's start to the last one's end"),
        ("kernel time", duration(summary["kernel_time_ns"]), f"{summary['kernel_count']:,} kernels, summed"),
        ("busy", pct(summary["kernel_busy_percent_of_span"]), f"kernel time over the span{per}; concurrent kernels "
                                                              "count each"),
        ("union busy", pct(summary["kernel_union_percent_of_span"]), f"time some kernel runs, over the span{per}"),
        ("GPU idle", duration(idle["kernel_idle_ns"]),
         "stretches without a kernel in the window's span that end at one of its kernels, summed over GPUs"
         if "window" in summary else
         f"time no kernel runs within the span{per}, a GPU's time before its first operation or after its last "
         "included: union busy and idle add up to the span"),
        ("launch gaps", f"{gaps['positive_gap_count']:,}", f"positive gaps between kernels, "
                                                           f"{duration(gaps['total_ns'])} in all; p90 "
                                                           f"{duration(launch['gaps']['p90_ns'])}"),
        ("launch overlap", pct(overlap["launch_api_overlap_percent"]) if overlap else "-",
         "share of the launch calls' time during which a kernel ran" if overlap else "no kern_exec trace"),
        ("CPU-starved kernels", pct(launch["cpu_starved_kernel_percent"]),
         "kernels whose launch call ended after the GPU went idle"),
    ]
    if summary["communication"] is not None:
        block = summary["communication"]
        items.append(("exposed communication", duration(block["exposed_ns"]),
                      f"of {duration(block['time_ns'])} communication, {pct(block['overlap_percent'])} behind "
                      f"compute"))
    return html.cards(items)


def _top_kernels(kernels: list[dict[str, Any]]) -> str:
    labels = kernel_labels([k["name"] for k in kernels], [k["short_name"] for k in kernels])
    columns = [Column("#", True),
               Column("kernel", wraps=True, title="short name with its functor, or a hash where two read alike; "
                                                  "hover for the full name"),
               Column("family"), Column("component"), Column("total ms", True), Column("% of kernel time", True),
               Column("launches", True), Column("mean µs", True), Column("median µs", True), Column("max µs", True)]
    rows = [[number(rank, str(rank)), html.Cell(label, title=k["name"]), k["family"], k["component"] + (
                f" (+{len(k['components']) - 1})" if len(k["components"]) > 1 else ""),
             number(k["total_ns"], ms(k["total_ns"])),
             number(k["percent_of_kernel_time"], pct(k["percent_of_kernel_time"])),
             number(k["launches"], f"{k['launches']:,}"), number(k["mean_ns"], us(k["mean_ns"])),
             number(k["median_ns"], us(k["median_ns"])), number(k["max_ns"], us(k["max_ns"]))]
            for rank, (label, k) in enumerate(zip(labels, kernels, strict=True), start=1)]
    return html.table("top-kernels", columns, rows, filterable=True)


def _utilization(utilization: dict[str, list[dict[str, Any]]], span_start_ns: int) -> str:
    """Busy % per time bin: a step line for one GPU; for several a heatmap, GPU by time (lines would hide each
    other where GPUs run alike)."""
    import plotly.graph_objects as go

    if not utilization:
        return '<p class="note">No GPU operation in this scope.</p>'
    bins = next(iter(utilization.values()))
    # each bin from its start to the next one's; the last ends at the span's end
    edges = [*((b["start_ns"] - span_start_ns) / 1e6 for b in bins),
             (bins[-1]["start_ns"] + bins[-1]["bin_ns"] - span_start_ns) / 1e6]
    title = f"busy % over time (bins of {duration(bins[0]['bin_ns'])})"
    axis = {"title": "time since the span's start (ms)"}
    if len(utilization) == 1:
        (device, bins), = utilization.items()
        # the last bin's value held to its end, so that every bin (a single one too) draws a step
        fig = go.Figure(go.Scatter(
            x=edges, y=[b["busy_percent"] for b in bins] + [bins[-1]["busy_percent"]], mode="lines",
            line={"shape": "hv"}, name=device,
            hovertemplate="%{x:,.3f} ms: %{y:.1f}% busy<extra>" + html.escape(device) + "</extra>"))
        fig.update_layout(xaxis=axis, yaxis={"title": "time some kernel runs (%)", "range": [0, 105]},
                          showlegend=False)
        return html.figure(fig, title)
    devices = list(utilization)
    fig = go.Figure(go.Heatmap(
        x=edges, y=devices, z=[[b["busy_percent"] for b in utilization[d]] for d in devices], zmin=0, zmax=100,
        colorscale="Blues", colorbar={"title": "busy %"},
        hovertemplate="%{y}, the bin around %{x:,.3f} ms: %{z:.1f}% busy<extra></extra>"))
    fig.update_layout(xaxis=axis, yaxis={"automargin": True, "autorange": "reversed"})
    return html.figure(fig, title, height=max(220, 120 + 28 * len(devices)))


def _gap_histogram(histogram: dict[str, list[dict[str, Any]]]) -> str:
    """Gap counts (top) and the time in those gaps (bottom) per logarithmic length bin: one series for one GPU,
    one per GPU for several."""
    import plotly.graph_objects as go
    from plotly.colors import qualitative
    from plotly.subplots import make_subplots

    if not histogram:
        return '<p class="note">No idle gap between kernels: each kernel starts before the one before it ends.</p>'
    per_device = {device: bins for device, bins in histogram.items() if device != "all"}
    shown = per_device if len(per_device) > 1 else {"all": histogram.get("all", [])}
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08)
    for index, (device, bins) in enumerate(shown.items()):
        labels = [f"{length(b['low_ns'])} to {length(b['high_ns'])}" for b in bins]
        color = html.COLORS["first"] if len(shown) == 1 else qualitative.D3[index % len(qualitative.D3)]
        fig.add_trace(go.Bar(x=labels, y=[b["gaps"] for b in bins], name=device, marker_color=color,
                             legendgroup=device, hovertemplate="%{x}: %{y:,} gaps<extra>" + html.escape(device)
                             + "</extra>"), row=1, col=1)
        fig.add_trace(go.Bar(x=labels, y=[b["total_ns"] / 1e6 for b in bins], name=device, marker_color=color,
                             legendgroup=device, showlegend=False,
                             hovertemplate="%{x}: %{y:,.3f} ms<extra>" + html.escape(device) + "</extra>"),
                      row=2, col=1)
    fig.update_layout(barmode="group", showlegend=len(shown) > 1)
    fig.update_yaxes(title_text="gaps", row=1, col=1)
    fig.update_yaxes(title_text="time in them (ms)", row=2, col=1)
    fig.update_xaxes(title_text="gap length", row=2, col=1)
    return html.figure(fig, "idle gaps between kernels by length (logarithmic bins)", height=460)


def _idle(idle: dict[str, Any]) -> str:
    """The idle time by cause; a cause the capture cannot tell is named below the chart, with what it needs."""
    import plotly.graph_objects as go

    known = [(IDLE_CAUSE_LABELS[c], idle[c]) for c in CAUSES if idle[c] is not None]
    largest = max((ns for _, ns in known), default=0)
    fig = go.Figure(go.Bar(
        x=[ns / 1e6 for _, ns in known], y=[label for label, _ in known], orientation="h",
        text=[f"{ms(ns)} ms ({pct(percent(ns, idle['kernel_idle_ns']))})" for _, ns in known],
        # a short bar's text beside it: inside, it would not fit and plotly would drop it
        textposition=["inside" if ns > 0.3 * largest else "outside" for _, ns in known], cliponaxis=False,
        hovertemplate="%{y}: %{x:,.3f} ms<extra></extra>"))
    fig.update_layout(xaxis_title="idle time (ms)", yaxis={"automargin": True, "autorange": "reversed"})
    unknown = [f"{IDLE_CAUSE_LABELS[c]} ({LACKS[c]})" for c in CAUSES if idle[c] is None]
    return html.figure(fig, f"why the GPU idles: {duration(idle['kernel_idle_ns'])} without a kernel", height=300,
                       note=f"Not told, their time counted under the later causes: {'; '.join(unknown)}."
                       if unknown else "")


def _critical_path(path: dict[str, Any]) -> str:
    """What the critical path is made of (a bar per part, most on top) and the nodes that hold most of it."""
    import plotly.graph_objects as go

    shown = sorted(((part, ns) for part, ns in path["composition"].items() if ns), key=lambda item: item[1])
    fig = go.Figure(go.Bar(
        x=[ns / 1e6 for _, ns in shown], y=[part.replace("_", " ") for part, _ in shown], orientation="h",
        text=[f"{ms(ns)} ms ({pct(path['composition_percent'][part])})" for part, ns in shown],
        textposition="auto", hovertemplate="%{y}: %{x:,.3f} ms<extra></extra>"))
    fig.update_layout(xaxis_title="time on the critical path (ms)", yaxis={"automargin": True})
    nodes = path["nodes"]
    labels = kernel_labels([n["name"] or "" for n in nodes], [n["short_name"] or "" for n in nodes])
    table = html.table("path-nodes", [Column("category"), Column("node", wraps=True), Column("ms", numeric=True),
                                      Column("% of path", numeric=True), Column("segments", numeric=True)],
                       [[n["category"], label, number(n["time_ns"] / 1e6, ms(n["time_ns"])),
                         number(n["percent_of_path"], pct(n["percent_of_path"])),
                         number(n["segments"], f"{n['segments']:,}")] for label, n in zip(labels, nodes, strict=True)])
    return html.figure(fig, f"the critical path: {duration(path['critical_path_ns'])} (the GPU span)",
                       height=max(260, 60 + 34 * len(shown))) + table


def _largest_gaps(gaps: list[dict[str, Any]], span_start_ns: int) -> str:
    if not gaps:
        return ""
    labels = kernel_labels([g[side] for g in gaps for side in ("before", "after")],
                           [g[f"{side}_short_name"] for g in gaps for side in ("before", "after")])
    columns = [Column("gap", True), Column("device"), Column("stream", True), Column("longest cause"),
               Column("kernel before", wraps=True), Column("kernel after", wraps=True),
               Column("starts at (ms)", True, "since the span's start, as on the utilization chart")]
    rows = [[number(g["gap_ns"], duration(g["gap_ns"])), g["device"], number(g["stream_id"], str(g["stream_id"])),
             IDLE_CAUSE_LABELS.get(f"{g['idle_cause']}_ns", "-"),
             f"[{g['before_component']}] {labels[2 * i]}", f"[{g['after_component']}] {labels[2 * i + 1]}",
             number(g["gap_start_ns"], ms(g["gap_start_ns"] - span_start_ns))] for i, g in enumerate(gaps)]
    return html.table("largest-gaps", columns, rows)


def _groups(groups: dict[str, dict[str, Any]]) -> str:
    columns = [Column("group"), Column("ranges", True), Column("range time ms", True, "the ranges' summed length"),
               Column("busy in ranges", True, "time some kernel runs, over the time the ranges cover"),
               Column("kernels", True), Column("kernel time ms", True),
               Column("GPU idle ms", True, "stretches without a kernel in the group's span that end at one of its "
                                           "kernels: between its ranges too, where no other group's kernel runs"),
               Column("CPU-launch idle ms", True), Column("launch gaps", True), Column("most time in (family)")]
    rows = []
    for label, g in groups.items():
        top = (max(g["families"].items(), key=lambda item: item[1]["milliseconds"])[0]
               if g["kernel_time_ns"] else "-")
        rows.append([label, number(g["ranges"], f"{g['ranges']:,}"),
                     number(g["range_time_ns"], ms(g["range_time_ns"])),
                     number(g["busy_percent"], pct(g["busy_percent"])),
                     number(g["kernel_count"], f"{g['kernel_count']:,}"),
                     number(g["kernel_time_ns"], ms(g["kernel_time_ns"])),
                     number(g["idle"]["kernel_idle_ns"], ms(g["idle"]["kernel_idle_ns"])),
                     number(g["idle"]["cpu_launch_ns"], ms(g["idle"]["cpu_launch_ns"])),
                     number(g["launch_gaps"]["positive_gap_count"], f"{g['launch_gaps']['positive_gap_count']:,}"),
                     top])
    return html.table("nvtx-groups", columns, rows, filterable=True)


def _ncu(components: dict[str, dict[str, Any]]) -> str:
    import plotly.graph_objects as go

    profiled = {name: c["ncu"] for name, c in components.items() if c.get("ncu") and c["launches"]}
    names = list(profiled)
    fig = go.Figure()
    for key, label, color in NCU_VERDICTS:
        fig.add_trace(go.Bar(y=names, x=[profiled[n][f"{key}_percent"] or 0 for n in names], name=label,
                             orientation="h", marker_color=color,
                             hovertemplate="%{y}: %{x:.1f}% of its kernel time " + label + "<extra></extra>"))
    fig.add_trace(go.Bar(y=names, x=[100 - (profiled[n]["profiled_percent"] or 0) for n in names],
                         name="not profiled", orientation="h", marker_color="#d9d9d9",
                         hovertemplate="%{y}: %{x:.1f}% of its kernel time not profiled<extra></extra>"))
    fig.update_layout(barmode="stack", xaxis={"title": "% of the component's kernel time", "range": [0, 100]},
                      yaxis={"automargin": True})
    columns = [Column("component"), Column("profiled", True), *(Column(label, True) for _, label, _ in NCU_VERDICTS),
               Column("SM throughput %", True), Column("memory throughput %", True)]
    rows = [[name, number(n["profiled_percent"], pct(n["profiled_percent"])),
             *(number(n[f"{key}_percent"], pct(n[f"{key}_percent"])) for key, _, _ in NCU_VERDICTS),
             number(n["sm_throughput_pct"], fixed(n["sm_throughput_pct"])),
             number(n["memory_throughput_pct"], fixed(n["memory_throughput_pct"]))] for name, n in profiled.items()]
    return (html.figure(fig, "ncu verdicts per component (share of its nsys kernel time)",
                        height=max(260, 80 + 40 * len(names))) + html.table("ncu-verdicts", columns, rows))


def _devices(devices: dict[str, dict[str, Any]]) -> str:
    """Each GPU over its own span (its first to last operation): union busy and the idle in it add up to that span;
    the capture's span before and after it is the starts late and ends early columns."""
    columns = [Column("device"), Column("span ms", True), Column("kernels", True), Column("kernel time ms", True),
               Column("busy", True), Column("union busy", True), Column("idle in its span ms", True),
               Column("starts late ms", True), Column("ends early ms", True)]
    rows = []
    for name, d in devices.items():
        in_span = d["idle"]["kernel_idle_ns"] - d["idle"]["inactive_ns"]
        rows.append([name, number(d["gpu_span_ns"], ms(d["gpu_span_ns"])),
                     number(d["kernel_count"], f"{d['kernel_count']:,}"),
                     number(d["kernel_time_ns"], ms(d["kernel_time_ns"])),
                     number(d["kernel_busy_percent_of_span"], pct(d["kernel_busy_percent_of_span"])),
                     number(d["kernel_union_percent_of_span"], pct(d["kernel_union_percent_of_span"])),
                     number(in_span, ms(in_span)), number(d["starts_late_ns"], ms(d["starts_late_ns"])),
                     number(d["ends_early_ns"], ms(d["ends_early_ns"]))])
    return html.table("devices", columns, rows)


def _provenance(summary: dict[str, Any]) -> str:
    columns = [Column("role"), Column("path", wraps=True), Column("rows", True), Column("sha256")]
    rows = [[i["role"], i["path"], number(i["rows"], f"{i['rows']:,}"), i["sha256"]] for i in summary["inputs"]]
    rules = summary["rule_set"]
    return html.table("inputs", columns, rows) + (
        f'<p class="meta">component rules {html.escape(rules["path"])} version <code>{rules["version"]}</code>; '
        f'family rules {html.escape(rules["families"]["path"])} version '
        f'<code>{rules["families"]["version"]}</code></p>')


def _idle_note(summary: dict[str, Any]) -> str:
    """Where the idle time lies: in the gaps between kernels (the histogram and the table) and the rest: for a
    whole capture before each GPU's first kernel and after its last, for a window in stretches that end at its
    kernels but begin outside its gaps (before its first kernel, or between its ranges)."""
    gaps, idle = summary["launch_gaps"], summary["idle"]["kernel_idle_ns"]
    parts = [f"{duration(gaps['total_ns'])} of it in {counted(gaps['positive_gap_count'], 'gap')} between kernels "
             f"(the histogram and the table)"] if gaps["positive_gap_count"] else []
    if idle > gaps["total_ns"]:
        rest = duration(idle - gaps["total_ns"])
        parts.append(f"{rest} in stretches that end at the window's kernels but begin outside those gaps (before "
                     f"its first kernel, between its ranges)" if "window" in summary else
                     f"{rest} before each GPU's first kernel and after its last")
    return f"GPU idle {duration(idle)}: {', '.join(parts)}." if parts else ""


def sections(answer: dict[str, Any]) -> list[tuple[str, str]]:
    """The page's sections, in order, as (id, html); no section's id is a table's (a filter box finds its table by
    id)."""
    summary, launch = answer["classify"], answer["launches"]
    span_start = answer["span_start_ns"]
    parts = [
        ("summary", html.section("summary", "Summary", _cards(summary, launch))),
        ("time", html.section(
            "time", "Where the kernel time goes",
            '<div class="charts">' + _bars(summary["components"], "kernel time by component")
            + _bars(summary["families"], "kernel time by kernel family") + "</div>",
            _without_time(summary["components"], "Components") + _without_time(summary["families"], "Families"))),
        ("kernels", html.section("kernels", f"Top {counted(len(summary['top_kernels']), 'kernel')} by total time",
                                     _top_kernels(summary["top_kernels"]),
                                     note="Click a heading to sort; type to filter.")),
        ("utilization", html.section("utilization", "GPU utilization over time",
                                     _utilization(answer["utilization"], span_start),
                                     note="" if span_start is None else
                                     f"0 ms is {span_start:,} ns on the capture's clock, the first GPU operation's "
                                     f"start{' in the window' if 'window' in summary else ''}.")),
        ("idle", html.section(
            "idle", "Idle gaps and their causes",
            '<div class="charts">' + _gap_histogram(answer["gap_histogram"]) + _idle(summary["idle"]) + "</div>",
            _largest_gaps(launch["largest_gaps"], span_start),
            note=_idle_note(summary))),
    ]
    if answer["critical_path"] is not None:
        parts.append(("path", html.section(
            "path", "The critical path", _critical_path(answer["critical_path"]),
            note="The chain of waits through the capture's dependency graph that ends at the GPU span's end: what "
                 "the span is made of (nsight-ingest critical-path; whatif replays it with edits). A wait counts "
                 "for the node that waited.")))
    if len(summary["devices"]) > 1:
        parts.append(("gpus", html.section("gpus", "Per GPU", _devices(summary["devices"]))))
    if answer["groups"]:
        parts.append(("groups", html.section(
            "groups", f"NVTX groups (--by-nvtx {answer['by_nvtx']})", _groups(answer["groups"]))))
    if any(c.get("ncu") for c in summary["components"].values()):
        parts.append(("ncu", html.section("ncu", "ncu verdicts per component", _ncu(summary["components"]))))
    parts.append(("provenance", html.section("provenance", "Inputs", _provenance(summary))))
    return parts


def render(answer: dict[str, Any]) -> tuple[str, list[str]]:
    """The page's HTML and its sections' ids."""
    summary = answer["classify"]
    window = f" [{summary['window']}]" if "window" in summary else ""
    parts = sections(answer)
    head = (f"<h1>nsight-ingest report: {html.escape(summary['source_gpu_trace'])}{html.escape(window)}</h1>"
            f'<p class="meta">{len(summary["devices"])} GPU(s), {summary["gpu_operation_count"]:,} GPU operations; '
            f"rules <code>{summary['rule_set']['version']}</code>, families "
            f"<code>{summary['rule_set']['families']['version']}</code>; inputs at the end of the page</p>")
    title = f"nsight-ingest report: {Path(summary['source_gpu_trace']).name}{window}"
    return html.page(title, head + "".join(text for _, text in parts)), [name for name, _ in parts]


def write(answer: dict[str, Any], path: Path, flag: str = "-o") -> dict[str, Any]:
    """Write the report page of `answer` (the report's answer) to `path` (given with `flag`), whole or not at all,
    never over an input (the siblings found too); what it holds."""
    summary = answer["classify"]
    output_checked(path, [i["path"] for i in summary["inputs"]], "report", flag)
    text, section_ids = render(answer)
    write_whole(path, text)
    return {"output": str(path), "bytes": path.stat().st_size, "sections": section_ids,
            "charts": text.count('class="chart"'), "window": summary.get("window"),
            "nvtx_groups": list(answer["groups"] or ()), "inputs": summary["inputs"], "rule_set": summary["rule_set"]}
