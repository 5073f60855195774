"""nsys `stats` CSV reports -> normalized SELECTs matching the store's tables.

Units are read from each header cell (`Start (ns)`, `Start (us)`, `Bytes (MB)`, `Bytes (B)`), never assumed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from nsight_ingest.errors import InputError
from nsight_ingest.readers.rows import Insert, Load
from nsight_ingest.readers.source import CsvTable, TableFile, locate_table, read_csv_call, table_copy
from nsight_ingest.sqlfiles import sql_string

# Factors to the store's base units: nanoseconds, bytes, bytes per second.
TIME_TO_NS = {"ns": 1, "nsec": 1, "us": 1_000, "usec": 1_000, "ms": 1_000_000, "msec": 1_000_000,
              "s": 1_000_000_000, "sec": 1_000_000_000}
SIZE_TO_BYTES = {"B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3}
RATE_TO_BYTES_PER_S = {f"{unit}/s": factor for unit, factor in SIZE_TO_BYTES.items()}
_FACTORS = {"time": TIME_TO_NS, "size": SIZE_TO_BYTES, "rate": RATE_TO_BYTES_PER_S}
_SUFFIX = {"time": "_ns", "size": "_bytes", "rate": "_bytes_per_s", "int": "", "int32": "", "text": ""}
_OUT_TYPE = {"time": "BIGINT", "size": "BIGINT", "rate": "DOUBLE", "int": "BIGINT", "int32": "INTEGER",
             "text": "VARCHAR"}


@dataclass(frozen=True)
class Column:
    """How one header cell maps to a store column. A `detail` column is read by no analysis (a temporary store
    leaves it out): a value there that does not parse never fails the file, it is NULL and counted in the row's
    `unparsed_values`, the same for every store."""

    name: str
    kind: str  # time | size | rate | int | int32 | text
    required: bool = False
    detail: bool = False

    @property
    def stored_name(self) -> str:
        """The store column it fills (the unit in the name)."""
        return self.name + _SUFFIX[self.kind]


@dataclass(frozen=True)
class ReportSpec:
    """One nsys report: its columns, the store table it fills and the SQL that shapes its rows."""

    report_type: str
    table: str
    columns: dict[str, Column]


GPU_TRACE = ReportSpec("cuda_gpu_trace", "gpu_ops", {
    "Start": Column("start", "time", True), "Duration": Column("duration", "time", True),
    "CorrId": Column("corr_id", "int"),
    "GrdX": Column("grid_x", "int32"), "GrdY": Column("grid_y", "int32", detail=True),
    "GrdZ": Column("grid_z", "int32", detail=True), "BlkX": Column("block_x", "int32", detail=True),
    "BlkY": Column("block_y", "int32", detail=True), "BlkZ": Column("block_z", "int32", detail=True),
    "Reg/Trd": Column("registers_per_thread", "int32", detail=True),
    "StcSMem": Column("static_smem", "size", detail=True), "DymSMem": Column("dynamic_smem", "size", detail=True),
    "Bytes": Column("transfer", "size"), "Throughput": Column("throughput", "rate", detail=True),
    "SrcMemKd": Column("src_mem_kind", "text"), "DstMemKd": Column("dst_mem_kind", "text"),
    "Device": Column("device", "text"), "Ctx": Column("context_id", "int", detail=True),
    "GreenCtx": Column("green_context_id", "int", detail=True), "Strm": Column("stream_id", "int"),
    "Name": Column("name", "text", True),
})

KERN_EXEC_TRACE = ReportSpec("cuda_kern_exec_trace", "kernel_launches", {
    "API Start": Column("api_start", "time", True), "API Dur": Column("api_duration", "time", True),
    "Queue Start": Column("queue_start", "time"), "Queue Dur": Column("queue_duration", "time"),
    "Kernel Start": Column("kernel_start", "time", True), "Kernel Dur": Column("kernel_duration", "time", True),
    "Total Dur": Column("total_duration", "time", detail=True), "PID": Column("pid", "int"),
    "TID": Column("tid", "int"), "DevId": Column("device_index", "int"), "API Function": Column("api_function", "text"),
    "GridXYZ": Column("grid_xyz", "text", detail=True), "BlockXYZ": Column("block_xyz", "text", detail=True),
    "Kernel Name": Column("kernel_name", "text", True, detail=True),
})

API_TRACE = ReportSpec("cuda_api_trace", "api_calls", {
    "Start": Column("start", "time", True), "Duration": Column("duration", "time", True),
    "Name": Column("name", "text", True), "Result": Column("result", "int"), "CorrID": Column("corr_id", "int"),
    "Pid": Column("pid", "int"), "Tid": Column("tid", "int"), "T-Pri": Column("thread_priority", "int"),
    "Thread Name": Column("thread_name", "text"),
    # What a call that synchronized waited for: CUPTI's synchronization records, which only export databases hold
    # (nsys stats prints no such column, so a CSV report leaves them NULL).
    "SyncKind": Column("sync_kind", "text"), "SyncStrm": Column("sync_stream_id", "int"),
})

NVTX_TRACE = ReportSpec("nvtx_pushpop_trace", "nvtx_ranges", {
    "Start": Column("start", "time", True), "End": Column("end", "time", True),
    "Duration": Column("duration", "time"), "DurChild": Column("duration_child", "time"),
    "DurNonChild": Column("duration_nonchild", "time"), "Name": Column("name", "text", True),
    "PID": Column("pid", "int"), "TID": Column("tid", "int"), "Lvl": Column("level", "int"),
    "NumChild": Column("num_children", "int"), "RangeId": Column("range_id", "int"),
    "ParentId": Column("parent_id", "int"), "RangeStack": Column("range_stack", "text"),
    "NameTree": Column("name_tree", "text"),
})

# The summaries `nsys stats` prints by default, which a user may hold instead of the traces: calls per API function
# and launches per kernel name over the whole capture.
API_SUM = ReportSpec("cuda_api_sum", "api_summary", {
    "Name": Column("name", "text", True), "Num Calls": Column("calls", "int", True),
    "Total Time": Column("total", "time", True),
})

KERNEL_SUM = ReportSpec("cuda_gpu_kern_sum", "kernel_summary", {
    "Name": Column("name", "text", True), "Instances": Column("instances", "int", True),
    "Total Time": Column("total", "time", True),
})


def detail_columns(spec: ReportSpec) -> tuple[str, ...]:
    """The store columns of `spec` that no analysis reads."""
    return tuple(column.stored_name for column in spec.columns.values() if column.detail)


SPECS = {spec.report_type: spec for spec in (GPU_TRACE, KERN_EXEC_TRACE, API_TRACE, NVTX_TRACE, API_SUM, KERNEL_SUM)}


def _lenient(column: Column) -> bool:
    """True for a number no analysis reads: read as text, NULL (and counted) when it does not parse."""
    return column.detail and not column.required and column.kind != "text"


def _csv_type(column: Column | None, unit: str | None) -> str:
    if column is None or column.kind == "text" or _lenient(column):
        return "VARCHAR"
    if column.kind in ("int", "int32"):
        return _OUT_TYPE[column.kind]
    if column.kind == "time" and TIME_TO_NS.get(unit or "") == 1:
        return "BIGINT"
    return "DOUBLE"


def _converted(column: Column, value: str, factor: float, cast: str = "CAST") -> str:
    """`value` (a number of the file's unit) in the store's base unit and type, converted with `cast`."""
    if column.kind == "rate":
        return f"{value} * {factor}"
    if factor == 1:
        return value
    return f"{cast}(round({value} * {factor}) AS BIGINT)"


def _normalized(column: Column, csv_name: str | None, unit: str | None, path: Path) -> tuple[str, str | None]:
    """The expression of one store column, in its base unit, and (for a lenient column) the condition of a value
    that did not parse; a lenient column of an unknown unit is NULL throughout."""
    out, out_type = column.stored_name, _OUT_TYPE[column.kind]
    if csv_name is None:
        return f"NULL::{out_type} AS {out}", None
    factor = 1
    if column.kind in _FACTORS:
        factors = _FACTORS[column.kind]
        if unit not in factors:
            if _lenient(column):
                return f"NULL::{out_type} AS {out}", None
            known = ", ".join(factors)
            raise InputError(f"{path}: column {column.name!r} has unknown unit {unit!r} (known: {known})")
        factor = factors[unit]
    if not _lenient(column):
        return f"{_converted(column, csv_name, factor)} AS {out}", None
    parsed = f"TRY_CAST({_converted(column, f'TRY_CAST({csv_name} AS DOUBLE)', factor, 'TRY_CAST')} AS {out_type})"
    return f"{parsed} AS {out}", f"({csv_name} IS NOT NULL AND {parsed} IS NULL)"


def build_source(table: CsvTable, spec: ReportSpec, source_file: TableFile) -> str:
    """The query over DuckDB's CSV reader of `source_file` that gives this report's columns, typed and in base units
    (the rows the report's reader SQL reads)."""
    csv_columns: list[str] = []
    present: dict[str, tuple[str, str | None]] = {}
    for index, cell in enumerate(table.header):
        column = spec.columns.get(cell.base)
        csv_name = f"c{index}_{column.name}" if column else f"c{index}_extra"
        if column and cell.base not in present:
            present[cell.base] = (csv_name, cell.unit)
        csv_columns.append(f"{sql_string(csv_name)}: '{_csv_type(column, cell.unit)}'")
    missing = [base for base, column in spec.columns.items() if column.required and base not in present]
    if missing:
        raise InputError(f"{table.path}: {spec.report_type} is missing required column(s): {', '.join(missing)}")
    normalized = [
        _normalized(column, *present.get(base, (None, None)), table.path) for base, column in spec.columns.items()
    ]
    unparsed = " + ".join(f"{failed}::UTINYINT" for _, failed in normalized if failed) or "0"
    reader = read_csv_call(source_file.path, source_file.compressed, skip=source_file.header_line, header=True,
                           columns=csv_columns)
    return f"SELECT {', '.join(e for e, _ in normalized)}, {unparsed} AS unparsed_values FROM {reader}"


def load(path: Path, report_type: str) -> Load:
    """Find `report_type`'s table in `path` and prepare the INSERT of its normalized rows."""
    spec = SPECS[report_type]
    table = locate_table(path, report_type)
    source_file = table_copy(table, always_scan=False)
    return Load(report_type, (Insert(report_type, spec.table, f"readers/{report_type}.sql",
                                     build_source(table, spec, source_file)),),
                temporary=source_file.temporary, lines_before=source_file.lines_before)
