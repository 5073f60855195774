"""Every analysis the tool answers, in one table: what it is called, what it computes, from which SQL modules,
the JSON keys it answers with, its options, how a person reads it, and whether its result may be kept in the store.
The CLI makes one command per capture analysis and the pipeline answers them all the same way (windows, cache,
integrity warnings, every input form); ncu, ranks and compare take other inputs and have commands of their own.

Adding an analysis: a SQL module under sql/ (its header declares what it requires and returns), a function that
shapes its rows and one that prints them as tables (both in its module under analysis/), and an entry here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from nsight_ingest.analysis import (
    audit,
    capture_report,
    classify,
    compare,
    critical_path,
    findings,
    launches,
    ncu,
    queue_delay,
    ranks,
    timeline,
    whatif,
)
from nsight_ingest.analysis.ncu import Thresholds


@dataclass(frozen=True)
class Option:
    """An analysis option: its key in the options (and the cache key), command-line flag, default and help; its
    type is the default's unless `kind` says (an option that defaults to None)."""

    name: str
    flag: str
    default: Any
    help: str
    minimum: float | None = None
    maximum: float | None = None
    kind: Any = None


# What an analysis reads, and the fields of the pipeline's request that kind fills: one capture (its files, siblings
# found by name, ncu exports of the same workload beside), a capture per rank, two captures (or per-update timings)
# to compare, ncu exports.
INPUT_KINDS = {"capture": ("captures",), "ranks": ("captures",), "pair": ("captures", "timings"),
               "timings": ("timings",), "ncu": ("ncu_files",)}
# How its scopes are made: a scope per window of the choice ("each window": the capture commands, cached in the
# store), one scope for a page (the report: classify, launches and its figures, and each --by-nvtx group's
# classify) or for a timeline (--by-nvtx groups as one window), one of the profiled ncu launches, one per rank
# capture (ranks_job's tasks), or the classify and launches scopes of each side of a comparison.
SCOPE_KINDS = ("each window", "one page", "one timeline", "ncu launches", "each rank", "each side")


@dataclass(frozen=True)
class Analysis:
    """A question and how it is answered: `answer` gives its JSON, whose top-level `keys` are always there, from the
    SQL `modules` it queries (and their requirements). A capture analysis' answer takes (scope, capture, options);
    the others take what their pipeline function gives them (ncu: scope, inputs, options; ranks: scope and the
    clock choices; compare: the classify and launches results of both captures; abba: scope, options)."""

    name: str
    help: str
    answer: Callable[..., dict[str, Any]]
    print_table: Callable[..., None]  # prints the answer as text tables for people (result, console=None)
    modules: tuple[str, ...]
    keys: tuple[str, ...]
    options: tuple[Option, ...] = ()
    inputs: str = "capture"  # what it reads (INPUT_KINDS)
    scopes: str = "each window"  # how the pipeline makes its scopes and answers (SCOPE_KINDS)
    windows: bool = True  # takes --nvtx / --range / --per-nvtx
    takes_ncu: bool = False  # takes --ncu exports of the same workload
    uses_rules: bool = True  # classifies kernels (takes --rules; the rule-set version keys its cached result)
    uses_families: bool = False  # without the component rules, still takes --families (kernel families)
    uses_findings: bool = False  # runs the finding rules (takes --findings; their version keys its cached result)
    cacheable: bool = True  # its result is kept in a --db store and read back when asked again

    def __post_init__(self) -> None:
        if self.inputs not in INPUT_KINDS or self.scopes not in SCOPE_KINDS:
            raise ValueError(f"analysis {self.name}: inputs {self.inputs!r} or scopes {self.scopes!r} unknown")

    def defaults(self) -> dict[str, Any]:
        """The options at their defaults."""
        return {option.name: option.default for option in self.options}


MOST = 1_000_000  # the largest count an option takes (rows to list, updates to drop): beyond, SQL integers overflow

THRESHOLDS = (
    Option("latency_below", "--latency-below", Thresholds.latency_below,
           "both throughputs below this %: latency bound", minimum=0, maximum=100),
    Option("bound_at_least", "--bound-at-least", Thresholds.bound_at_least,
           "compute/memory bound needs at least this %", minimum=0, maximum=100),
    Option("dominance", "--dominance", Thresholds.dominance, "... and more than this times the other throughput",
           minimum=1),
)

_SOURCES = ("source_gpu_trace", "source_kernel_exec_trace")

CLASSIFY = Analysis(
    "classify", "Where the kernel time goes, by component, with launch gaps and CPU-GPU launch overlap.",
    classify.answer, classify.print_table,
    modules=("scope.summary", "classify.timeline", "classify.components", "classify.families",
             "classify.top_kernels", "scope.launch_coverage", "launches.launch_api", "scope.integrity",
             "scope.graph_launches", "scope.summary_kernels", "ncu.by_component", "scope.window_busy",
             "launches.gap_percentiles", "idle.causes", "communication.overlap"),
    keys=(*_SOURCES, "gpu_span_ns", "gpu_operation_count", "kernel_count", "kernel_time_ns",
          "kernel_busy_percent_of_span", "kernel_union_percent_of_span", "launch_gaps", "idle", "idle_inputs",
          "cpu_gpu_overlap",
          "communication", "components", "families", "top_kernels",
          "classification_policy", "family_policy", "launch_api", "inputs", "devices", "rule_set", "capture_id",
          "integrity"),
    options=(Option("top", "--top", 10, "how many kernels to list in top_kernels (by total time)", minimum=1,
                    maximum=MOST), *THRESHOLDS), takes_ncu=True)
LAUNCHES = Analysis(
    "launches", "Why the GPU waits: gap anatomy, launch-call latency, queueing and CPU starvation.",
    launches.answer, launches.print_table,
    modules=("launches.gap_percentiles", "launches.cpu_starved", "launches.stream_gaps", "scope.launch_coverage",
             "launches.launch_api", "launches.largest_gaps", "launches.gaps_by_component_pair",
             "launches.gaps_by_family_pair", "launches.by_family", "launches.queue_delay", "scope.integrity",
             "scope.graph_launches", "scope.summary_kernels", "scope.window_busy", "classify.top_kernels",
             "idle.causes"),
    keys=(*_SOURCES, "launch_api_calls", "kernels_without_launch_row", "gaps", "idle", "idle_inputs", "largest_gaps",
          "gaps_by_component_pair", "gaps_by_family_pair", "api_duration_ns", "queue_delay_ns", "by_family",
          "cpu_starved_kernel_percent", "integrity", "inputs", "rule_set"),
    options=(Option("top", "--top", 10, "how many of the largest gaps to list", minimum=1, maximum=MOST),
             Option("gap_calls", "--gap-calls", 5, "per listed gap: how many of the CPU API calls in progress "
                    "during it to name (those overlapping it longest)", minimum=0, maximum=MOST),
             Option("top_kernels", "--top-kernels", 10, "with NVTX windows: how many kernels to list per window",
                    minimum=1, maximum=MOST)))
QUEUE_DELAY = Analysis(
    "queue-delay", "How long launched kernels waited in the launch queue (kern_exec Queue Dur).",
    queue_delay.answer, queue_delay.print_table,
    modules=("launches.queue_delay",), keys=(*_SOURCES, "queue_delay_ns", "inputs"), uses_rules=False)
AUDIT = Analysis(
    "audit", "How a rule set fits a trace: time no rule matched (part of component other), rules that matched "
    "nothing, overlaps, neighbour share.",
    audit.answer, audit.print_table,
    modules=("audit.context_share", "audit.unmatched", "audit.unmatched_families", "audit.rule_hits",
             "audit.overlaps"),
    keys=("source_gpu_trace", "unmatched", "other_component", "rules", "dead_rules", "overlapping_names",
          "neighbour_rules", "rule_set"),
    options=(Option("top", "--top", 10, "unmatched names to list", minimum=1, maximum=MOST),), cacheable=False)

FINDINGS = Analysis(
    "findings", "What to fix first: diagnoses from SQL finding rules, each with its evidence and the most time fixing "
    "it could save, ranked by that gain ceiling.", findings.answer, findings.print_table,
    modules=(*(item.module for item in findings.EVIDENCE), "whatif.targets", "whatif.edit_matches", "whatif.summary"),
    keys=("findings", "skipped", "gpu_span_ns", "rule_set", "inputs"),
    options=(*THRESHOLDS, Option("replay_ceilings", "--replay-ceilings/--no-replay-ceilings", True, "take the gain "
                                 "ceilings of launch-bound, synchronization and communication findings from a replay "
                                 "of the dependency graph without what they name (whatif)")),
    takes_ncu=True, uses_findings=True)

TIMELINE = Analysis(
    "timeline", "The capture as a Perfetto timeline: a process per GPU with a track per stream (each kernel with "
    "its component and family), API calls and NVTX ranges per thread, launch flows, busy and family counters, the "
    "largest gaps marked with their idle cause, the critical path.", timeline.answer, timeline.print_table,
    modules=("timeline.track_keys", "timeline.earliest_cuts", "timeline.edges", "timeline.begins", "timeline.ends",
             "timeline.flows", "timeline.counters", "timeline.threads", "launches.largest_gaps",
             "graph.path_slices"),
    keys=("slices", "counters", "threads", "gaps", "critical_path", "window", "range_end_ns",
          "nvtx_window", "inputs", "rule_set"),
    options=(Option("top", "--top", 10, "how many of the largest gaps to mark", minimum=0, maximum=MOST),
             Option("critical_path", "--critical-path/--no-critical-path", False, "draw the critical path on a "
                    "track of its own (critical-path): the walk over the dependency graph and a slice per segment "
                    "(at 1M operations about twice the slices, 30 s and 0.7 GB more)"),
             Option("bins", "--bins", 1000, "counter samples over the span (the busy and family counters' bins)",
                    minimum=1, maximum=MOST),
             Option("max_events", "--max-events", 2_000_000, "the most slices and counter samples to write: a "
                    "capture with more is cut at the time the limit is reached, with a warning", minimum=1,
                    maximum=1_000_000_000)),
    scopes="one timeline", cacheable=False)

REPORT = Analysis(
    "report", "One capture as a self-contained HTML page (plotly charts, offline): summary cards, time by component "
    "and family, top kernels, busy % over time per GPU, gap lengths, idle causes, the critical path; the NVTX groups "
    "with --by-nvtx, "
    "ncu verdicts per component with --ncu.", capture_report.answer, capture_report.print_table,
    modules=("timeline.counters", "launches.gap_histogram", "graph.composition", "graph.path_nodes"),
    keys=("utilization", "span_start_ns", "gap_histogram", "gap_bins_per_decade", "critical_path"),
    options=(Option("top", "--top", 25, "how many kernels the top-kernels table lists (by total time)", minimum=1,
                    maximum=MOST),
             Option("bins", "--bins", 200, "time bins of the busy-over-time chart", minimum=1, maximum=100_000),
             Option("critical_path", "--critical-path/--no-critical-path", True, "chart what the critical path is "
                    "made of (critical-path); --no-critical-path leaves out its walk over the dependency graph"),
             *THRESHOLDS),
    scopes="one page", takes_ncu=True, cacheable=False)

CRITICAL_PATH = Analysis(
    "critical-path", "The critical path: the chain of waits through the capture's dependency graph (GPU operations, "
    "CPU calls, stream order, launches, program order, synchronization) that ends at the GPU span's end; what it is "
    "made of and the nodes that hold most of it.",
    critical_path.answer, critical_path.print_table,
    modules=("scope.summary", "graph.composition", "graph.path_nodes", "graph.size", "scope.window_busy"),
    keys=("source_gpu_trace", "span_ns", "critical_path_ns", "composition", "composition_percent", "gpu_by_family",
          "gpu_by_component", "nodes", "graph", "stopped", "inputs", "rule_set"),
    options=(Option("top", "--top", 10, "how many of the nodes that hold the most of the path to list", minimum=1,
                    maximum=MOST),))

WHATIF = Analysis(
    "whatif", "Replay the capture's dependency graph with edits (faster launches, faster or removed kernels, removed "
    "synchronizations, overlapped communication): the predicted span, the change and the replay's critical path. "
    "Without edits the replay reproduces the capture.",
    whatif.answer, whatif.print_table,
    modules=("scope.summary", "whatif.targets", "whatif.edit_matches", "whatif.summary", "whatif.composition",
             "whatif.path_nodes", "graph.size", "scope.window_busy"),
    keys=("source_gpu_trace", "measured_span_ns", "predicted_span_ns", "change_percent", "speedup", "edits",
          "critical_path", "replay", "graph", "inputs", "rule_set"),
    options=(Option("launch_latency", "--launch-latency", None, "DUR (2us, 800ns): kernels fed as from a CUDA "
                    "graph: each starts at most DUR after its launch call starts, a launch call takes at most DUR "
                    "and follows the thread's previous launch call at once", kind=str | None),
             Option("kernel_speedup", "--kernel-speedup", None, "family=FAMILY:X or name=REGEX:X: those kernels run "
                    "X times faster; repeatable", kind=list[str] | None),
             Option("remove_kernels", "--remove-kernels", None, "REGEX: kernels whose name matches take no time "
                    "(their launch calls stay); repeatable", kind=list[str] | None),
             Option("remove_syncs", "--remove-syncs", None, "REGEX: CPU calls whose API function matches no longer "
                    "wait for the GPU; repeatable", kind=list[str] | None),
             Option("overlap_communication", "--overlap-communication", False, "what follows a communication "
                    "kernel (other than communication kernels) waits only for what that kernel waited for"),
             Option("top", "--top", 10, "how many of the nodes that hold the most of the replay's path to list",
                    minimum=1, maximum=MOST)))

# The analyses of one capture that are commands of their own (`rules audit` is a subcommand; `timeline` writes a
# file and has a command of its own).
CAPTURE_COMMANDS = (CLASSIFY, LAUNCHES, QUEUE_DELAY, FINDINGS, CRITICAL_PATH, WHATIF)

# Analyses of other inputs (the pipeline answers them as their `scopes` say).
NCU = Analysis(
    "ncu", "Nsight Compute metrics per profiled kernel, in base units, with compute/memory/latency-bound verdicts.",
    ncu.answer, ncu.print_table,
    modules=("ncu.metric_values", "ncu.launches", "ncu.groups", "ncu.device_attributes", "ncu.unknown_units"),
    keys=("inputs", "thresholds", "devices", "kernels", "groups", "unknown_units", "rule_set"),
    options=(*THRESHOLDS, Option("all_metrics", "--all-metrics", False, "every metric, not just the common ones")),
    inputs="ncu", scopes="ncu launches", windows=False, cacheable=False)
RANKS = Analysis(
    "ranks", "Several ranks: aligned span, idle time of all GPUs, NCCL and all-gather time, collective skew and "
    "waiting, communication overlap per rank.", ranks.analyse, ranks.print_table,
    modules=("ranks.bounds", "ranks.nccl_kernels", "ranks.clock_estimates", "ranks.collectives", "ranks.per_rank",
             "ranks.busy", "communication.overlap"),
    keys=("aligned", "unaligned_ranks", "caveat", "aligned_profile_span_seconds", "non_nccl_kernel_seconds_per_gpu",
          "both_gpus_idle_ms",
          "both_gpus_idle_percent_of_aligned_span", "ranks", "rank_labels", "collectives", "aligned_span_ns",
          "inputs", "family_set"),
    options=(Option("rank_pattern", "--rank-pattern", None, "regex whose group 1 is the rank in a file name "
                    "(default: rank3, _r3); text that is no number is a label, ranks follow the labels' sorted "
                    "order", kind=str | None),
             Option("offset", "--offset", None, "RANK=NS: that rank's (label or number) clock offset, instead of "
                    "the estimate; repeatable", kind=list[str] | None),
             Option("nvtx", "--nvtx", None, "each rank's NVTX range of this name is its step", kind=str | None),
             Option("time_range", "--range", None, "START_NS:END_NS on the aligned clock", kind=str | None),
             Option("workers", "--workers", 1, "read the rank files side by side on a local Dask cluster of this "
                    "many worker processes (1: one after another in this process)", minimum=1, maximum=1024),
             Option("dask_address", "--dask-address", None, "HOST:PORT: read the rank files on the workers of this "
                    "Dask cluster (they see the files at the same paths)", kind=str | None)),
    inputs="ranks", scopes="each rank", windows=False, uses_rules=False, uses_families=True, cacheable=False)
COMPARE = Analysis(
    "compare", "Before/after: deltas between two captures, or matched A/B/B/A wall-clock timings (--abba).",
    compare.captures, compare.print_table,
    modules=tuple(dict.fromkeys((*CLASSIFY.modules, *LAUNCHES.modules, "compare.kernels"))),
    keys=("a", "b", "kernel_time_ms", "speedup", "gpu_span_ms", "kernel_busy_percent", "kernel_union_percent",
          "idle", "communication", "components", "families",
          "kernels", "appeared", "vanished", "launch_gaps", "launch_overlap_percent", "cpu_starved_kernel_percent"),
    options=(Option("top", "--top", 10, "how many changed kernels to list (by the change of their total time)",
                    minimum=1, maximum=MOST),
             Option("fail_above", "--fail-above", None, "PCT: exit 1 when the gate metric got worse by more than "
                    "PCT percent (the JSON gets a verdict: worse, better or unchanged)", minimum=0, kind=float | None),
             Option("gate_metric", "--gate-metric", "kernel_time_ms", "what --fail-above judges: "
                    + ", ".join(compare.GATE_METRICS))),
    inputs="pair", scopes="each side", windows=False, cacheable=False)
ABBA = Analysis(
    "compare --abba", "Matched A/B/B/A wall-clock timings: seconds per update of each variant and the speedup.",
    compare.abba, compare.print_table, modules=("compare.abba", "compare.abba_design"),
    keys=("design", "observations_per_variant", "before_seconds_per_update", "after_seconds_per_update",
          "time_reduction_percent_rounded", "speedup", "warmup_updates_excluded_per_trial",
          "final_updates_excluded_per_trial"),
    options=(Option("warmup", "--warmup", 2, "first updates of each trial to drop", minimum=0, maximum=MOST),
             Option("final", "--final", 1, "last updates of each trial to drop", minimum=0, maximum=MOST)),
    inputs="timings", scopes="each side", windows=False, uses_rules=False, cacheable=False)

# Every analysis, for what holds of them all (their flags' keywords, the modules they read).
ALL = (*CAPTURE_COMMANDS, AUDIT, TIMELINE, REPORT, NCU, RANKS, COMPARE, ABBA)
