"""Deterministic synthetic multi-rank traces: one cuda_gpu_trace CSV per rank, each on its own clock.

Every step, each rank computes, then joins an all-gather, computes again, joins a reduce-scatter and an
all-reduce. A collective starts on each rank when that rank arrives and ends on all ranks together (the last
arrival plus the transfer). Known truth is injected and returned: per-rank clock offsets, an idle window in which
no rank runs anything, and a rank that arrives late at one step's all-gather. With `overlap`, each rank also runs
a compute kernel on a second stream while each collective runs (as bucketed gradient all-reduces hide behind the
backward pass), starting and ending at random, sometimes after the collective.
"""

from __future__ import annotations

import csv
import random
from dataclasses import dataclass, field
from pathlib import Path

HEADER = ["Start (ns)", "Duration (ns)", "CorrId", "GrdX", "GrdY", "GrdZ", "BlkX", "BlkY", "BlkZ", "Reg/Trd",
          "StcSMem (MB)", "DymSMem (MB)", "Bytes (MB)", "Throughput (MB/s)", "SrcMemKd", "DstMemKd", "Device", "Ctx",
          "GreenCtx", "Strm", "Name"]
STREAMS = {"compute": 7, "overlap": 8, "communication": 20}
COMPUTE = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x64_64x3_tn_align8>(T1::Params)"
NCCL = {
    "all_gather": "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>)",
    "reduce_scatter": "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>)",
    "all_reduce": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>)",
}


@dataclass
class RankTruth:
    """What was generated, on the global clock."""

    files: list[Path]
    clock_offsets_ns: list[int]                      # rank clock = global clock + offset
    # per rank: (start, end, kind), kind 'compute', 'overlap' (compute on the second stream) or a collective
    intervals: list[list[tuple[int, int, str]]] = field(default_factory=list)
    skew_ns: dict[str, int] = field(default_factory=dict)  # per collective: summed arrival skew
    late_rank: int = 0
    late_step: int = 0


def generate(out_dir: Path, ranks: int = 2, steps: int = 4, *, offsets: list[int] | None = None,
             idle_ns: int = 3_000_000, idle_step: int = 1, late_rank: int = 1, late_step: int = 2,
             late_ns: int = 2_000_000, seed: int = 11, prefix: str = "job", overlap: bool = False) -> RankTruth:
    """Write `<prefix>_rank<N>_cuda_gpu_trace.csv` for N in range(ranks) and return the truth."""
    rng = random.Random(seed)
    offsets = offsets if offsets is not None else [rng.randint(-50_000_000, 50_000_000) for _ in range(ranks)]
    truth = RankTruth([], offsets, [[] for _ in range(ranks)], dict.fromkeys(NCCL, 0), late_rank, late_step)
    clock = 10_000_000
    for step in range(steps):
        for collective in NCCL:
            arrivals = []
            for rank in range(ranks):
                busy = sum(rng.randint(20_000, 60_000) for _ in range(3))
                start = clock + rng.randint(1_000, 5_000)
                for kernel in range(3):
                    length = busy // 3
                    truth.intervals[rank].append((start + kernel * length, start + (kernel + 1) * length, "compute"))
                arrival = start + 3 * (busy // 3)
                if collective == "all_gather" and rank == late_rank and step == late_step:
                    arrival += late_ns
                arrivals.append(arrival)
            finish = max(arrivals) + rng.randint(10_000, 30_000)
            truth.skew_ns[collective] += max(arrivals) - min(arrivals)
            for rank in range(ranks):
                truth.intervals[rank].append((arrivals[rank], finish, collective))
                if overlap:
                    start = arrivals[rank] + rng.randint(-10_000, finish - arrivals[rank])
                    truth.intervals[rank].append((start, start + rng.randint(5_000, 40_000), "overlap"))
            clock = finish
        if step == idle_step:
            clock += idle_ns
    for rank in range(ranks):
        path = out_dir / f"{prefix}_rank{rank}_cuda_gpu_trace.csv"
        with path.open("w", newline="") as fh:
            writer = csv.writer(fh, lineterminator="\n")
            writer.writerow(HEADER)
            for corr, (start, end, kind) in enumerate(truth.intervals[rank]):
                name = NCCL.get(kind, COMPUTE)
                writer.writerow([start + offsets[rank], end - start, corr, 132, 1, 1, 256, 1, 1, 96, "0.000",
                                 "0.049", "", "", "", "", "NVIDIA H100 (0)", 1, "",
                                 STREAMS.get(kind, STREAMS["communication"]), name])
        truth.files.append(path)
    return truth
