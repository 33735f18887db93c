#!/bin/sh
# run_aot_test.sh TIRXC SRC_DIR OUT_DIR [FAKE_DRIVER]
#
# Generate launchers for scale, scale_dyn, block_sum, cluster, tma_tile,
# unread_shape and two_kernels_host_stmt (tests/golden/lowering) with
# `tirxc --emit=c-launcher`, build
# tests/aot/aot_gpu_test.c against them with $CC (default cc) and run it.
# With FAKE_DRIVER (tests/unit/fake/fake_cuda.c built as a shared library)
# the program loads that instead of libcuda.so.1 and checks launch
# configurations rather than results (no GPU needed). Exit 77: skipped (no
# NVRTC here, or no driver/GPU for the real run). $AOT_ARCH picks --arch
# (default: this machine's GPU, else sm_90a).
set -u
tirxc=$1 src=$2 out=$3 fake=${4:-}
cc=${CC:-cc}
rm -rf "$out" && mkdir -p "$out" || exit 1
arch=""
[ -n "${AOT_ARCH:-}" ] && arch="--arch=$AOT_ARCH"
for k in scale scale_dyn block_sum cluster tma_tile unread_shape two_kernels_host_stmt; do
  # shellcheck disable=SC2086
  if ! "$tirxc" "$src/tests/golden/lowering/$k.tirx" --emit=c-launcher $arch -o "$out/$k.c" \
      2>"$out/$k.err"; then
    if grep -qi "nvrtc" "$out/$k.err"; then
      echo "skip: no NVRTC:"; cat "$out/$k.err"; exit 77
    fi
    cat "$out/$k.err"; exit 1
  fi
done
flags="-std=c11 -O1 -g -Wall -Wextra -Werror -I$out"
if [ -n "$fake" ]; then
  flags="$flags -DAOT_FAKE -DTIRX_AOT_CUDA_LIBRARY=\"$fake\" -I$src -I$src/include -I$src/tests/unit"
fi
# shellcheck disable=SC2086
$cc $flags -o "$out/aot_gpu_test" "$src/tests/aot/aot_gpu_test.c" "$out/scale.c" \
  "$out/scale_dyn.c" "$out/block_sum.c" "$out/cluster.c" "$out/tma_tile.c" "$out/unread_shape.c" \
  "$out/two_kernels_host_stmt.c" \
  -ldl -lpthread -lm ||
  exit 1
"$out/aot_gpu_test"
