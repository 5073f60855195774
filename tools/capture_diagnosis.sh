#!/bin/bash
# Captures the diagnosis cases of tools/capture_diagnosis.py with nsys on the GPU machine and exports their nsys
# stats CSVs (the traces, and the cuda_api_sum / cuda_gpu_kern_sum summaries) into OUT_DIR.
# Usage there: [CASES='eager_sync graph_node ...'] bash tools/capture_diagnosis.sh OUT_DIR   (capture/lib: the importer's libraries, a copy of
# ../shared/capture/lib)
set -e
OUT_DIR=$1; mkdir -p "$OUT_DIR"
ND=/opt/nvidia/nsight-compute/2025.3.1/host
NSYS=$ND/target-linux-x64/nsys; QI=$ND/linux-desktop-glibc_2_11_3-x64/QdstrmImporter
HERE=$(cd "$(dirname "$0")" && pwd); LIB=$HERE/../capture/lib
REPORTS="-r cuda_gpu_trace -r cuda_kern_exec_trace -r cuda_api_trace -r cuda_api_sum -r cuda_gpu_kern_sum"
capture() {  # NAME GRAPH_TRACE CASE
    local name=$1 graph_trace=$2 case=$3 work; work=$(mktemp -d)
    (cd "$work" && $NSYS profile -t cuda,nvtx --cuda-graph-trace="$graph_trace" --capture-range=cudaProfilerApi \
        --capture-range-end=stop -o "$work/$name" python3 "$HERE/capture_diagnosis.py" $case)
    [ -f "$work/$name.nsys-rep" ] || LD_LIBRARY_PATH=$LIB $QI -i "$work/$name.qdstrm"
    # shellcheck disable=SC2086
    $NSYS stats -q $REPORTS -f csv -o "$OUT_DIR/$name" "$work/$name.nsys-rep"
    rm -rf "$work"
}
for case in ${CASES:-eager_sync graph_node graph_untraced late_stream}; do
    case $case in
        eager_sync) capture eager_sync node eager_sync ;;
        graph_node) capture graph_node node "graph --steps 50" ;;
        graph_untraced) capture graph_untraced graph "graph --steps 50" ;;
        late_stream) capture late_stream node late_stream ;;
    esac
done
ls -la "$OUT_DIR"
