#!/bin/sh
# run_runtime.sh BUILD_DIR - launch overhead and cold/warm compile latency on
# GPU 0 (bench_runtime), over the doc kernels. Skips (exit 0) without a GPU.
set -u
BUILD=${1:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
BIN="$BUILD/bin/bench_runtime"
[ -x "$BIN" ] || { echo "run_runtime: $BIN not built"; exit 1; }
CACHE=$(mktemp -d)
"$BIN" --cache-dir "$CACHE" "$HERE"/../examples/scale.tirx "$HERE"/../examples/smem_demo.tirx \
  "$HERE"/../examples/warp_reduce.tirx "$HERE"/../examples/tiled_gemm.tirx \
  "$HERE"/../tests/golden/lowering/block_sum.tirx "$HERE"/../tests/golden/lowering/scale_dyn.tirx
rc=$?
rm -rf "$CACHE"
[ $rc = 77 ] && { echo "run_runtime: no GPU, skipped"; exit 0; }
exit $rc
