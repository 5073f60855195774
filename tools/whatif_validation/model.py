# A small inference model for the what-if validation: many short kernels (eager: launch-bound), one probe kernel
# whose work is a known multiple (--probe-iters), each step in an NVTX range and synchronized.
import argparse

import torch
import triton
import triton.language as tl


@triton.jit
def probe_kernel(x_ptr, out_ptr, ITERS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    acc = x
    for _ in range(ITERS):
        acc = acc * 1.0001 + 0.5
        acc = tl.sqrt(acc * acc + 1.0)
    tl.store(out_ptr + offs, acc)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=["eager", "graph"], default="eager")
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--layers", type=int, default=12)
    p.add_argument("--probe-iters", type=int, default=2000)
    a = p.parse_args()
    torch.manual_seed(0)
    d = 1024
    layers = [torch.nn.Linear(d, d).cuda().half() for _ in range(a.layers)]
    norms = [torch.nn.LayerNorm(d).cuda().half() for _ in range(a.layers)]
    x0 = torch.randn(64, d, device="cuda", dtype=torch.half)
    probe_in = torch.rand(1 << 20, device="cuda")
    probe_out = torch.empty_like(probe_in)

    def step():
        x = x0
        for lin, norm in zip(layers, norms, strict=False):
            x = norm(torch.nn.functional.gelu(lin(x)) + x)
        probe_kernel[(probe_in.numel() // 1024,)](probe_in, probe_out, ITERS=a.probe_iters, BLOCK=1024)
        return x.sum()

    with torch.no_grad():
        for _ in range(3):
            step()
        torch.cuda.synchronize()
        graph = None
        if a.mode == "graph":
            graph = torch.cuda.CUDAGraph()
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                step()
            torch.cuda.current_stream().wait_stream(s)
            with torch.cuda.graph(graph):
                step()
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStart()
        for i in range(a.steps):
            torch.cuda.nvtx.range_push(f"step {i}")
            if graph is not None:
                graph.replay()
            else:
                step()
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_pop()
        torch.cuda.cudart().cudaProfilerStop()
    print("done", a.mode, a.steps)


if __name__ == "__main__":
    main()
