#!/bin/bash
# Issue #8's comparison on the GPU machine: capture a real trace of about 41,600 kernels (capture/, a copy of
# ../shared/capture), time nsys's own `nsys stats -r cuda_gpu_kern_sum` on its SQLite export and
# `nsight-ingest classify` on its CSV export (tools.bench.run: median of 5, largest peak RSS), then run `make bench`'s
# benchmark.
# Usage there: bash tools/bench_device.sh OUT_DIR   (duckdb and nsight_ingest importable by python3)
set -e
OUT_DIR=$1; mkdir -p "$OUT_DIR"
NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
CAP=$(mktemp -d)
OUT=$CAP bash capture/capture.sh real --blocks 40 --steps 40 > "$OUT_DIR/capture.log" 2>&1
python3 - "$CAP" "$NSYS" > "$OUT_DIR/nsys_vs_classify.json" <<'PY'
import json, subprocess, sys
from pathlib import Path
from tools.bench import line_count, run
cap, nsys = Path(sys.argv[1]), sys.argv[2]
gpu = cap / "real_cuda_gpu_trace.csv"
def median_of(command):
    seconds, peak = run(command)
    return {"seconds": seconds, "peak_rss_bytes": peak}
summary = json.loads(subprocess.run([sys.executable, "-m", "nsight_ingest", "classify", str(gpu)],
                                    capture_output=True, check=True).stdout)
print(json.dumps({
    "gpu_operations": line_count(gpu),
    "kernels": summary["kernel_count"],
    "nsys_stats_cuda_gpu_kern_sum": median_of([nsys, "stats", "-q", "-r", "cuda_gpu_kern_sum", "-f", "csv",
                                               "-o", str(cap / "kern_sum"), "--force-overwrite", "true",
                                               str(cap / "real.sqlite")]),
    "classify": median_of([sys.executable, "-m", "nsight_ingest", "classify", str(gpu)]),
}, indent=2))
PY
python3 tools/bench.py --scaling --json > "$OUT_DIR/bench.json"
nproc > "$OUT_DIR/cores.txt"
