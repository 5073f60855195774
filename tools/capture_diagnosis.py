"""Small CUDA programs whose captures the diagnoses are checked on (run under nsys by tools/capture_diagnosis.sh).

  eager_sync   an eager loop that synchronizes the device after every kernel (an HPC-style solver loop)
  graph        the same loop's kernels captured once in a CUDA graph and replayed, an eager step before each replay
  late_stream  two streams of one GPU: the second starts its kernels only after most of the capture has passed
"""

import argparse

import torch

N = 1024


def step(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """One solver step of three kernels: a small GEMM, a scale and a ReLU."""
    y = x @ w
    y = y * 0.5
    return torch.relu(y)


def eager_sync(x: torch.Tensor, w: torch.Tensor, steps: int) -> None:
    for _ in range(steps):
        y = x @ w
        torch.cuda.synchronize()
        y = y * 0.5
        torch.cuda.synchronize()
        x = torch.relu(y)
        torch.cuda.synchronize()


def graph(x: torch.Tensor, w: torch.Tensor, steps: int) -> None:
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up outside the capture, as CUDA graph capture requires
        step(x, w)
    torch.cuda.current_stream().wait_stream(side)
    loop = torch.cuda.CUDAGraph()
    with torch.cuda.graph(loop):
        out = x
        for _ in range(10):
            out = step(out, w)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    for _ in range(steps):  # each step: an eager step, then the graph's ten
        step(x, w)
        loop.replay()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()


def late_stream(x: torch.Tensor, w: torch.Tensor, steps: int) -> None:
    early, late = torch.cuda.Stream(), torch.cuda.Stream()
    with torch.cuda.stream(early):
        for _ in range(steps):
            step(x, w)
    torch.cuda.synchronize()
    with torch.cuda.stream(early):  # the first stream goes on while the second starts
        for _ in range(steps // 4):
            step(x, w)
    with torch.cuda.stream(late):
        for _ in range(steps // 4):
            step(x, w)
    torch.cuda.synchronize()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("case", choices=["eager_sync", "graph", "late_stream"])
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()
    torch.manual_seed(0)
    x = torch.randn(N, N, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(N, N, device="cuda", dtype=torch.bfloat16) / N**0.5
    for _ in range(3):  # load the kernels before the capture starts
        step(x, w)
    torch.cuda.synchronize()
    if args.case == "graph":
        graph(x, w, args.steps)
        return
    torch.cuda.cudart().cudaProfilerStart()
    {"eager_sync": eager_sync, "late_stream": late_stream}[args.case](x, w, args.steps)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()


if __name__ == "__main__":
    main()
