"""Time windows of a capture an analysis can be limited to: NVTX ranges by name or pattern, explicit ranges."""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from nsight_ingest.errors import InputError, first_line
from nsight_ingest.sqlmodules import query
from nsight_ingest.store import TIME_LIMIT_NS, Capture


@dataclass(frozen=True)
class Window:
    """Time ranges [start, end) in ns, each optionally tied to the thread that opened it (NVTX)."""

    label: str
    ranges: tuple[tuple[int, int, int | None], ...]
    nvtx: bool = False  # NVTX ranges (their time and how busy the GPU was in them are part of the answer)


def time_range(spec: str) -> Window:
    """`START_NS:END_NS` as a window (either side may be empty: open-ended)."""
    start, sep, end = spec.partition(":")
    try:
        if not sep:
            raise ValueError
        low = int(start) if start.strip() else -TIME_LIMIT_NS
        high = int(end) if end.strip() else TIME_LIMIT_NS
    except ValueError:
        raise InputError(f"--range {spec!r}: expected START_NS:END_NS in integer nanoseconds") from None
    if abs(low) > TIME_LIMIT_NS or abs(high) > TIME_LIMIT_NS:
        raise InputError(f"--range {spec!r}: times lie within +-{TIME_LIMIT_NS} ns")
    if high <= low:
        raise InputError(f"--range {spec!r}: the end must come after the start")
    return Window(f"range {spec}", ((low, high, None),))


def _nvtx_rows(con: duckdb.DuckDBPyConnection, capture: Capture, name: str | None, pattern: str | None,
               flag: str = "--per-nvtx") -> list:
    if capture.nvtx is None:
        raise InputError(f"{capture.gpu_trace.path}: NVTX windows need NVTX push/pop ranges and the capture has none "
                         f"(an export captured without nsys --trace=nvtx, or a CSV set without --nvtx-trace FILE)")
    try:
        rows = query(con, "scope.nvtx_ranges", nvtx_trace=capture.nvtx.trace_id, name=name, pattern=pattern)
    except duckdb.Error as exc:
        raise InputError(f"{flag} {pattern!r}: {first_line(exc)}") from None
    return [(r["range_name"], r["start_ns"], r["end_ns"], r["tid"], r["group_name"]) for r in rows]


def _available(con: duckdb.DuckDBPyConnection, capture: Capture) -> str:
    names = con.execute(
        "SELECT DISTINCT range_name FROM nvtx_ranges WHERE trace_id = ? ORDER BY 1 LIMIT 8", [capture.nvtx.trace_id]
    ).fetchall()
    return ", ".join(repr(n) for (n,) in names) or "none"


def nvtx_window(con: duckdb.DuckDBPyConnection, capture: Capture, name: str) -> Window:
    """Every NVTX range called `name` (domain prefix ignored), together, as one window."""
    rows = _nvtx_rows(con, capture, name.lstrip(":"), None)
    if not rows:
        raise InputError(f"no NVTX range named {name!r} in {capture.nvtx.path} (some: {_available(con, capture)})")
    return Window(f"nvtx {name}", tuple((start, end, tid) for _, start, end, tid, _ in rows), nvtx=True)


def per_nvtx_windows(con: duckdb.DuckDBPyConnection, capture: Capture, pattern: str) -> list[Window]:
    """One window per NVTX range whose name fully matches `pattern`, in start order."""
    rows = _nvtx_rows(con, capture, None, pattern)
    if not rows:
        raise InputError(f"no NVTX range matches {pattern!r} in {capture.nvtx.path} (some: {_available(con, capture)})")
    return [Window(f"{name} @ {start}", ((start, end, tid),), nvtx=True) for name, start, end, tid, _ in rows]


def by_nvtx_windows(con: duckdb.DuckDBPyConnection, capture: Capture, pattern: str) -> list[Window]:
    """The NVTX ranges whose name fully matches `pattern`, grouped by what the pattern's first capture group matched
    (DuckDB's regular expressions, as they selected the ranges); a pattern whose group matched nothing in any range,
    or that has none, makes one group named by the pattern. One window per group, in the order they first occur."""
    rows = _nvtx_rows(con, capture, None, pattern, "--by-nvtx")
    if not rows:
        raise InputError(f"no NVTX range matches {pattern!r} in {capture.nvtx.path} (some: {_available(con, capture)})")
    grouped = any(group for *_, group in rows)
    groups: dict[str, list[tuple[int, int, int | None]]] = {}
    for _, start, end, tid, group in rows:
        groups.setdefault(group if grouped else pattern, []).append((start, end, tid))
    return [Window(label, tuple(ranges), nvtx=True) for label, ranges in groups.items()]


def nvtx_name_given(flag: str, name: str | None) -> None:
    """Refuse an NVTX option given an empty name or pattern (it would silently mean the whole capture)."""
    if name is not None and not name.strip():
        raise InputError(f"{flag} needs a range name or pattern, not an empty one")


@dataclass(frozen=True)
class WindowChoice:
    """Which part of a capture to analyse: every NVTX range called `nvtx` together, the `time_range`
    START_NS:END_NS, each NVTX range matching `per_nvtx` on its own, the ranges matching `by_nvtx` grouped by its
    first capture group, or (all None) the whole capture."""

    nvtx: str | None = None
    time_range: str | None = None
    per_nvtx: str | None = None
    by_nvtx: str | None = None

    def __post_init__(self) -> None:
        if sum(o is not None for o in (self.nvtx, self.time_range, self.per_nvtx, self.by_nvtx)) > 1:
            raise InputError("choose one of --nvtx, --range, --per-nvtx, --by-nvtx")
        if self.time_range is not None:
            time_range(self.time_range)  # a bad --range is refused before any input is read
        nvtx_name_given("--nvtx", self.nvtx)
        nvtx_name_given("--per-nvtx", self.per_nvtx)
        nvtx_name_given("--by-nvtx", self.by_nvtx)

    @property
    def needs_nvtx(self) -> bool:
        """True when the choice reads NVTX ranges."""
        return bool(self.nvtx or self.per_nvtx or self.by_nvtx)

    @property
    def several(self) -> bool:
        """True when the choice makes several windows (each answered on its own)."""
        return bool(self.per_nvtx or self.by_nvtx)


def chosen(con: duckdb.DuckDBPyConnection, capture: Capture, choice: WindowChoice) -> list[Window | None]:
    """The windows of the choice, in order (None: the whole capture)."""
    if choice.per_nvtx:
        return list(per_nvtx_windows(con, capture, choice.per_nvtx))
    if choice.by_nvtx:
        return by_nvtx_windows(con, capture, choice.by_nvtx)
    if choice.nvtx:
        return [nvtx_window(con, capture, choice.nvtx)]
    if choice.time_range:
        return [time_range(choice.time_range)]
    return [None]
