"""Deterministic generator of nsys cuda_gpu_trace + cuda_kern_exec_trace CSVs from real kernel names.

`dit_blocks` writes a capture with the launch mix of one profiled DiT block (launch counts 250/200/800/202/100/1192
per component); `--rows N` repeats that block for benchmarks, as a model's layers repeat. Returns the ground truth
it wrote, counted while writing.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

NAMES_TSV = Path(__file__).resolve().parent.parent / "tests" / "data" / "kernel_names_expected.tsv"

# One DiT block as profiled for the default components: launches and total milliseconds per component, and its
# 59 memcpy/memset operations.
DIT_BLOCK = {
    "sage2": (250, 13029.23856),
    "nvfp4_gemms": (200, 4167.855808),
    "nvfp4_packing": (800, 2026.853664),
    "norm_and_rope": (202, 1084.3856),
    "remaining_gate_add": (100, 549.298592),
    "other": (1192, 37.433152),
}
DIT_BLOCK_MEMOPS = 59

GPU_HEADER = [
    "Start (ns)", "Duration (ns)", "CorrId", "GrdX", "GrdY", "GrdZ", "BlkX", "BlkY", "BlkZ", "Reg/Trd",
    "StcSMem (MB)", "DymSMem (MB)", "Bytes (MB)", "Throughput (MB/s)", "SrcMemKd", "DstMemKd", "Device", "Ctx",
    "GreenCtx", "Strm", "Name",
]
KERN_EXEC_HEADER = [
    "API Start (ns)", "API Dur (ns)", "Queue Start (ns)", "Queue Dur (ns)", "Kernel Start (ns)", "Kernel Dur (ns)",
    "Total Dur (ns)", "PID", "TID", "DevId", "API Function", "GridXYZ", "BlockXYZ", "Kernel Name",
]
MEMOPS = ["[CUDA memcpy Host-to-Device]", "[CUDA memcpy Device-to-Host]", "[CUDA memset]"]
# Generic kernels whose class the default neighbour rules decide; left out so that a shuffled trace keeps the
# component each name was drawn for.
NEIGHBOUR_DEPENDENT = re.compile(
    r"AbsFunctor<|MaxNanFunctor|MaxOps<|FillFunctor<|DivFunctor|reciprocal|clamp|bfloat16_copy_kernel_cuda"
    r"|float8_copy_kernel_cuda|MulFunctor|silu_kernel"
)


@dataclass
class Truth:
    """What the generator wrote, counted as it wrote it."""

    gpu_trace: Path
    kern_exec: Path
    launches: Counter = field(default_factory=Counter)
    time_ns: Counter = field(default_factory=Counter)
    operations: int = 0
    first_start_ns: int = 0
    last_end_ns: int = 0


def load_names(path: Path = NAMES_TSV) -> dict[str, list[str]]:
    """Corpus names by expected component, leaving out context-dependent and truncated ones."""
    names: dict[str, list[str]] = {}
    with open(path, newline="", encoding="utf-8") as fh:
        for row in csv.reader(fh, delimiter="\t"):
            usable = row and not row[0].startswith("#") and row[1] not in ("context", "unclassifiable")
            if usable and not NEIGHBOUR_DEPENDENT.search(row[0]):
                names.setdefault(row[1], []).append(row[0])
    return names


def _open(path: Path, compress: bool):
    return gzip.open(path, "wt", newline="", encoding="utf-8") if compress else open(path, "w", newline="",
                                                                                       encoding="utf-8")


def generate(out_dir: Path, prefix: str, plan: dict[str, tuple[int, float]], memops: int, *, repeats: int = 1,
             seed: int = 3, compress: bool = False) -> Truth:
    """Write `<prefix>_cuda_gpu_trace.csv` and its kern_exec sibling: one shuffled block with exactly the planned
    launches, repeated `repeats` times (as a model's layers repeat) with fresh durations and gaps each time."""
    rng = random.Random(seed)
    names = load_names()
    suffix = ".csv.gz" if compress else ".csv"
    truth = Truth(out_dir / f"{prefix}_cuda_gpu_trace{suffix}", out_dir / f"{prefix}_cuda_kern_exec_trace{suffix}")
    order = [c for c, (count, _) in plan.items() for _ in range(count)] + ["memop"] * memops
    rng.shuffle(order)
    block = [(c, rng.choice(MEMOPS if c == "memop" else names[c])) for c in order]
    mean_ns = {c: total_ms * 1e6 / count for c, (count, total_ms) in plan.items() if count}
    clock = 1_000_000
    with _open(truth.gpu_trace, compress) as gpu_fh, _open(truth.kern_exec, compress) as exec_fh:
        gpu, launches = csv.writer(gpu_fh, lineterminator="\n"), csv.writer(exec_fh, lineterminator="\n")
        gpu.writerow(GPU_HEADER)
        launches.writerow(KERN_EXEC_HEADER)
        corr_id = 100
        for component, name in block * repeats:
            corr_id += 1
            clock += rng.randint(1_000, 8_000)  # launch gap
            truth.first_start_ns = truth.first_start_ns or clock
            if component == "memop":
                duration = rng.randint(1_000, 3_000)
                gpu.writerow([clock, duration, corr_id, "", "", "", "", "", "", "", "", "", "0.131", "11010.703",
                              "Pageable", "Device", "NVIDIA GB10 (0)", 1, "", 7, name])
            else:
                duration = max(1, round(mean_ns[component] * rng.uniform(0.8, 1.2)))
                grid = (rng.choice([1, 64, 148, 2048]), rng.choice([1, 8, 24]), 1)
                api = "cuLaunchKernelEx" if component == "nvfp4_gemms" else "cudaLaunchKernel"
                api_dur = rng.randint(2_000, 20_000)
                api_start = clock - api_dur - rng.randint(500, 5_000)
                gpu.writerow([clock, duration, corr_id, *grid, 128, 1, 1, 32, "0.000", "0.000", "", "", "", "",
                              "NVIDIA GB10 (0)", 1, "", 7, name])
                launches.writerow([api_start, api_dur, "", "", clock, duration, clock + duration - api_start, 4242,
                                   4242, 0, api, f"{grid[0]:4d} {grid[1]:4d} {grid[2]:4d}", " 128    1    1", name])
                truth.launches[component] += 1
                truth.time_ns[component] += duration
            truth.operations += 1
            clock += duration
        truth.last_end_ns = clock
    return truth


def dit_blocks(out_dir: Path, prefix: str = "dit_block", *, repeats: int = 1, seed: int = 3,
              compress: bool = False) -> Truth:
    """A capture of one DiT block's launch mix, repeated `repeats` times."""
    return generate(out_dir, prefix, DIT_BLOCK, DIT_BLOCK_MEMOPS, repeats=repeats, seed=seed, compress=compress)


def main() -> None:
    """Command line: write a capture of DiT blocks of about --rows GPU operations."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--rows", type=int, default=2803, help="approximate GPU operations (default: one block)")
    parser.add_argument("--prefix", default="synthetic")
    parser.add_argument("--gzip", action="store_true")
    args = parser.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    repeats = max(1, round(args.rows / (sum(c for c, _ in DIT_BLOCK.values()) + DIT_BLOCK_MEMOPS)))
    truth = dit_blocks(args.out_dir, args.prefix, repeats=repeats, compress=args.gzip)
    print(f"wrote {truth.operations} GPU operations to {truth.gpu_trace} and {truth.kern_exec}")


if __name__ == "__main__":
    main()
