#!/bin/bash
# Capture one nsys report per rank of tools/capture_multirank/train_step.py and export each with nsys stats.
# Usage, on the GPU machine: bash tools/capture_multirank/capture.sh OUT_DIR [NPROC]
# Writes OUT_DIR/rank<N>_cuda_gpu_trace.csv, rank<N>_cuda_kern_exec_trace.csv, rank<N>_nvtx_pushpop_trace.csv and
# rank<N>.sqlite. IMPORTER_LIBS must hold the libraries the bundled QdstrmImporter needs (../shared/capture/lib,
# carried into the project as capture/lib).
set -euo pipefail
OUT=$(realpath -m "$1"); NPROC=${2:-2}; mkdir -p "$OUT"
HERE=$(cd "$(dirname "$0")" && pwd)
IMPORTER_LIBS=${IMPORTER_LIBS:-$HERE/../../capture/lib}
ND=/opt/nvidia/nsight-compute/2025.3.1/host
NSYS=$ND/target-linux-x64/nsys; QI=$ND/linux-desktop-glibc_2_11_3-x64/QdstrmImporter
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
W=$(mktemp -d)
# One report per process: %q{RANK} is the rank torchrun gives each process.
torchrun --standalone --nproc_per_node="$NPROC" --no-python \
    "$NSYS" profile -t cuda,nvtx --cuda-graph-trace=node --capture-range=cudaProfilerApi --capture-range-end=stop \
    -o "$W/rank%q{RANK}" python3 "$HERE/train_step.py"
for ((r = 0; r < NPROC; r++)); do
    [ -f "$W/rank$r.nsys-rep" ] || LD_LIBRARY_PATH=$IMPORTER_LIBS "$QI" -i "$W/rank$r.qdstrm"
    "$NSYS" stats -q -r cuda_gpu_trace -r cuda_kern_exec_trace -r nvtx_pushpop_trace -f csv -o "$OUT/rank$r" \
        "$W/rank$r.nsys-rep"
    cp "$W/rank$r.sqlite" "$OUT/" 2>/dev/null || true
done
rm -rf "$W"
ls -la "$OUT"
