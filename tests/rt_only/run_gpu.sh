#!/bin/sh
# run_gpu.sh - the runtime-only test on a GPU: compile two_kernels.tirx for
# this GPU (tirxc probes it; NVRTC needed) and run it with run_saved, which
# links libtirx_rt alone. Skips (77) without a GPU or NVRTC.
#
#   run_gpu.sh TIRXC RUN_SAVED SRC WORKDIR
set -eu
tirxc=$1 run_saved=$2 src=$3 work=$4
mkdir -p "$work"
if ! "$tirxc" "$src" --emit=executable -o "$work/two.tirxexe" 2>"$work/compile.err"; then
  echo "skipped: cannot compile device code here: $(head -c 300 "$work/compile.err")"
  exit 77
fi
exec "$run_saved" "$work/two.tirxexe"
