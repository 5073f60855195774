#!/bin/bash
# Capture the validation model eagerly, as a CUDA graph, and with the probe kernel's work doubled; export .sqlite
# under $OUT. On the GPU machine: copy ../shared/capture/lib (the importer's libraries) beside this script first, then
# `OUT=captures bash tools/whatif_validation/capture.sh`; here: `python tools/whatif_validation/analyze.py captures`.
set -e
ND=/opt/nvidia/nsight-compute/2025.3.1/host
NSYS=$ND/target-linux-x64/nsys; QI=$ND/linux-desktop-glibc_2_11_3-x64/QdstrmImporter
HERE=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"
mkdir -p "${OUT:=$PWD/captures}"
run() {
  N=$1; shift
  (cd $W && $NSYS profile -t cuda,nvtx --cuda-graph-trace=node --capture-range=cudaProfilerApi \
      --capture-range-end=stop -o $W/$N python3 $HERE/model.py "$@" > $W/$N.log 2>&1) || cat $W/$N.log
  [ -f $W/$N.nsys-rep ] || (cd $W && LD_LIBRARY_PATH=$HERE/lib $QI -i $W/$N.qdstrm)
  $NSYS export --type sqlite -o $OUT/$N.sqlite $W/$N.nsys-rep > /dev/null
  ls -la $OUT/$N.sqlite
}
run val_eager --mode eager
run val_graph --mode graph
run val_eager_probe2x --mode eager --probe-iters 4000
run val_graph_probe2x --mode graph --probe-iters 4000
