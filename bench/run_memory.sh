#!/bin/sh
# run_memory.sh BUILD_DIR - the memory-bound kernels of bench/memory on GPU 0
# (bench_memory: tile-primitive and native TIRx, the device's cuMemcpyDtoD)
# and PyTorch's ops on the same shapes (torch_peer.py), in one run. Skips
# (exit 0) without a GPU; the PyTorch half is skipped, with a line saying
# so, where PyTorch is not installed.
set -u
BUILD=${1:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
BIN="$BUILD/bin/bench_memory"
[ -x "$BIN" ] || { echo "run_memory: $BIN not built"; exit 1; }
"$BIN" "$HERE/memory"
rc=$?
[ $rc = 77 ] && { echo "run_memory: no GPU, skipped"; exit 0; }
[ $rc = 0 ] || exit $rc
if python3 -c "import torch" 2>/dev/null; then
  python3 "$HERE/memory/torch_peer.py"
else
  echo "run_memory: PyTorch not installed, its peer numbers skipped"
fi
