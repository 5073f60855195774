"""A few steps of a DiT-style compute block interleaved with NCCL collectives, one NVTX range per step.

Run under torchrun (one process per GPU). Step 0 warms up; profiling covers steps 1.. (cudaProfilerStart/Stop).
In step LATE_STEP, rank LATE_RANK starts late (a CPU delay before its compute), so the other ranks' all-gather
kernels start early and wait: the skew and waiting `nsight-ingest ranks` should find.
"""

import os
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F

# NVLink multicast stays off on shared hosts (workplace rule); keep it off for any NCCL run.
os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")


def main() -> None:
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(rank % torch.cuda.device_count())
    device = torch.device("cuda")
    steps = int(os.environ.get("STEPS", "5"))
    late_rank = int(os.environ.get("LATE_RANK", str(world - 1)))
    late_step = int(os.environ.get("LATE_STEP", "2"))
    late_seconds = float(os.environ.get("LATE_SECONDS", "0.02"))
    torch.manual_seed(rank)
    tokens, width = 4096, 3072
    x = torch.randn(tokens, width, device=device, dtype=torch.bfloat16)
    w1 = torch.randn(width, 4 * width, device=device, dtype=torch.bfloat16) / width**0.5
    w2 = torch.randn(4 * width, width, device=device, dtype=torch.bfloat16) / width**0.5
    shard = torch.randn(16 * 1024 * 1024, device=device, dtype=torch.bfloat16)  # 32 MB per rank
    gathered = torch.empty(world * shard.numel(), device=device, dtype=torch.bfloat16)
    scattered = torch.empty(shard.numel(), device=device, dtype=torch.bfloat16)
    for step in range(steps):
        if step == 1:
            torch.cuda.synchronize()
            torch.cuda.cudart().cudaProfilerStart()
        torch.cuda.nvtx.range_push(f"step {step}")
        if rank == late_rank and step == late_step:
            time.sleep(late_seconds)
        h = F.layer_norm(x, (width,))
        h = F.gelu(h @ w1) @ w2
        dist.all_gather_into_tensor(gathered, shard)
        h = h + F.layer_norm(h, (width,))
        dist.reduce_scatter_tensor(scattered, gathered)
        dist.all_reduce(h)
        x = (x + 1e-3 * h).contiguous()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
    torch.cuda.cudart().cudaProfilerStop()
    dist.destroy_process_group()
    print(f"rank {rank}/{world}: {steps} steps done")


if __name__ == "__main__":
    main()
