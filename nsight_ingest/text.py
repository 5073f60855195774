"""How numbers and kernel names read for people, alike in the terminal's tables and the HTML pages: fixed
notation with the unit in the heading, and kernel labels that keep different kernels apart."""

from __future__ import annotations

import hashlib
import math
import re


def ms(ns: float | None) -> str:
    """Nanoseconds as milliseconds, 3 decimals ('-' for none)."""
    return "-" if ns is None else f"{ns / 1e6:,.3f}"


def us(ns: float | None) -> str:
    """Nanoseconds as microseconds, 1 decimal ('-' for none)."""
    return "-" if ns is None else f"{ns / 1e3:,.1f}"


def duration(ns: float | None, precise: bool = False) -> str:
    """A duration in the unit that reads best: ns below 1 µs, µs below 1 ms, ms below 1 s, else s; µs with 1
    decimal, or 3 when `precise` (to the ns)."""
    if ns is None:
        return "-"
    for unit, scale, digits in (("s", 1e9, 3), ("ms", 1e6, 3), ("µs", 1e3, 3 if precise else 1)):
        if abs(ns) >= scale:
            return f"{ns / scale:,.{digits}f} {unit}"
    return f"{ns:,.0f} ns"


def length(ns: float) -> str:
    """A duration for an axis label: ns, µs, ms or s with 3 significant figures at most."""
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def metric_value(value: float | None, unit: str | None) -> str:
    """A history metric's value in fixed notation for its unit: ms with 3 decimals, % with 2, ns and counts whole."""
    if value is None or not math.isfinite(value):
        return "-"
    return f"{value:,.3f}" if unit == "ms" else f"{value:.2f}" if unit == "%" else f"{value:,.0f}"


def counted(count: int, noun: str) -> str:
    """A count with its noun, plural but for one: '1 gap', '1,192 gaps'."""
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def fixed(value: float | None) -> str:
    """A number with 2 decimals ('-' for none)."""
    return "-" if value is None else f"{value:,.2f}"


def pct(value: float | None) -> str:
    """A percentage with 2 decimals ('-' for none)."""
    return "-" if value is None else f"{value:.2f}%"


# The idle causes (idle.CAUSES) as people read them.
IDLE_CAUSE_LABELS = {"inactive_ns": "device inactive", "untraced_graph_ns": "graph replay not traced",
                     "memory_transfer_ns": "memory transfer", "synchronization_ns": "synchronization",
                     "cpu_launch_ns": "CPU launch", "other_ns": "other"}

# The identifier in a kernel's template arguments that says what a generic kernel does: PyTorch's elementwise and
# reduce templates name their functor (MulFunctor, silu_kernel, direct_copy_kernel_cuda, MeanOps); namespaces are no
# such identifier, nor the gpu_kernel_impl wrappers every PyTorch elementwise kernel holds.
_FUNCTOR = re.compile(r"[A-Za-z_]\w*(?:Functor\w*|Ops?|_kernel\w*|Kernel\w*)(?!\w|>?::)")
_WRAPPERS = re.compile(r"gpu_kernel_impl\w*")


def kernel_label(name: str, short_name: str) -> str:
    """A kernel's label for a table: its short name, followed by the last functor of its template arguments when it
    has one (`elementwise_kernel<MulFunctor>`), so the same kernel reads the same in every table."""
    at = name.find(short_name + "<")
    arguments = name[at + len(short_name):] if at >= 0 else ""
    functors = [f for f in _FUNCTOR.findall(arguments) if f != short_name and not _WRAPPERS.fullmatch(f)]
    return f"{short_name}<{functors[-1]}>" if functors else short_name


def kernel_labels(names: list[str], short_names: list[str]) -> list[str]:
    """The labels of a table's kernels (kernel_label); where two still read the same, each gets a short hash of
    its full name, so that different kernels never share a label."""
    labels = [kernel_label(name, short) for name, short in zip(names, short_names, strict=True)]
    named: dict[str, set[str]] = {}
    for name, label in zip(names, labels, strict=True):
        named.setdefault(label, set()).add(name)
    return [f"{label} #{hashlib.sha1(name.encode()).hexdigest()[:6]}" if len(named[label]) > 1 else label
            for name, label in zip(names, labels, strict=True)]


# A kernel_key's short name: what comes before its template arguments, parameters or lambda (the key keeps the
# return type without its space: 'voidelementwise_kernel<...>').
_KEY_SHORT_NAME = re.compile(r"(?:void)?([^<(\[]*)")


def key_labels(keys: list[str]) -> list[str]:
    """The labels (kernel_labels) of kernels known by their kernel_key alone, as the nightly history keeps them."""
    return kernel_labels(keys, [_KEY_SHORT_NAME.match(key).group(1) for key in keys])
