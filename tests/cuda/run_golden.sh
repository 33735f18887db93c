#!/bin/sh
# run_golden.sh - build tests/cuda/run_golden.cu with the golden kernels and
# run it on the GPU. usage: run_golden.sh OUTDIR [ARCH]  (ARCH default sm_90a)
# Exits 77 without nvcc or without a GPU.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: run_golden.sh OUTDIR [ARCH]}
arch=${2:-sm_90a}
nvcc=${NVCC:-$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)}
[ -x "$nvcc" ] || { echo "SKIP: nvcc not found"; exit 77; }
# No driver, no GPU: skip before spending half a minute in nvcc.
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1' && [ ! -e /dev/nvidia0 ]; then
  echo "SKIP: no CUDA driver (libcuda.so.1) or GPU on this machine"
  exit 77
fi
g=$here/../golden/cuda
mkdir -p "$out"
"$nvcc" -gencode "arch=compute_${arch#sm_},code=$arch" -o "$out/run_golden" "$here/run_golden.cu" \
  "$g/scale.expected.cu" "$g/scale_grid.expected.cu" "$g/scal.expected.cu" \
  "$g/smem_demo.expected.cu" "$g/dyn_arena.expected.cu" "$g/block_sum.expected.cu" \
  "$g/warp_reduce.expected.cu" "$g/floordiv.expected.cu" "$g/control.expected.cu" \
  "$g/unroll.expected.cu" "$g/func_call.expected.cu" "$g/launch_bounds.expected.cu" \
  "$g/cluster.expected.cu" "$g/module.expected.cu" "$g/vector.expected.cu"
exec "$out/run_golden"
