"""Shared fixtures: paths to bundled data and a helper that runs the CLI in-process."""

from __future__ import annotations

import io
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from nsight_ingest import cli

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
SAMPLES = ROOT / "sample_traces"

GPU_HEADER = (
    "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),"
    "Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name"
)
API_HEADER = "Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid,T-Pri,Thread Name"
KERN_EXEC_HEADER = (
    "API Start (ns),API Dur (ns),Queue Start (ns),Queue Dur (ns),Kernel Start (ns),Kernel Dur (ns),"
    "Total Dur (ns),PID,TID,DevId,API Function,GridXYZ,BlockXYZ,Kernel Name"
)


def kernel_row(start: int, duration: int, name: str, device: str = "NVIDIA H200 (0)", stream: int = 7,
               corr_id: int = 1) -> str:
    """One cuda_gpu_trace kernel row (name quoted)."""
    quoted = name.replace('"', '""')
    return f'{start},{duration},{corr_id},1,1,1,128,1,1,32,0.000,0.000,,,,,{device},1,,{stream},"{quoted}"'


def memop_row(start: int, duration: int, name: str, device: str = "NVIDIA H200 (0)") -> str:
    """One cuda_gpu_trace memcpy/memset row."""
    return f"{start},{duration},2,,,,,,,,,,0.001,1.000,Pageable,Device,{device},1,,7,{name}"


def launch_row(api_start: int, api_dur: int, kernel_start: int, kernel_dur: int, name: str,
               api: str = "cudaLaunchKernel", device_index: int = 0) -> str:
    """One cuda_kern_exec_trace row without queueing."""
    total = kernel_start + kernel_dur - api_start
    return (f"{api_start},{api_dur},,,{kernel_start},{kernel_dur},{total},1,1,{device_index},{api},"
            f'   1    1    1, 128    1    1,"{name}"')


def stored_gpu_span(db: Path) -> int:
    """The GPU span of the capture a store holds, from its rows: first start to last end of the operations whose
    duration is no data error (between 0 and an hour)."""
    import duckdb

    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute("SELECT max(start_ns + duration_ns) - min(start_ns) FROM gpu_ops "
                           "WHERE duration_ns BETWEEN 0 AND 3600000000000").fetchone()[0]


def write(path: Path, header: str, rows: list[str]) -> Path:
    """Write a CSV export with the given header and rows."""
    path.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    return path


def write_rules(folder: Path, files: dict[str, str]) -> Path:
    """A rules folder holding these rule files (file name -> text)."""
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


@dataclass
class CliResult:
    code: int
    out: str
    err: str

    def json(self) -> dict:
        return json.loads(self.out)


@pytest.fixture(autouse=True)
def cache_folder(monkeypatch, tmp_path_factory) -> Path:
    """Each test's own cache folder for converted reports and ingested stores (never the user's)."""
    folder = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("NSIGHT_INGEST_CACHE_DIR", str(folder))
    return folder


@pytest.fixture
def run_cli(monkeypatch, capsys):
    """Run `nsight-ingest ARGS...` in-process through the real entry point."""

    def run(*args: str, stdin: bytes | None = None) -> CliResult:
        monkeypatch.setattr(sys, "argv", ["nsight-ingest", *map(str, args)])
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
        code = 0
        try:
            cli.main()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run
