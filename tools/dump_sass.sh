#!/bin/sh
# dump_sass.sh [FILE] [ARCH] [TIRXC] - the SASS of a kernel, to see which
# memory instructions it really uses: tirxc FILE --emit=ptx, ptxas to a
# cubin, cuobjdump -sass; then a count of its global loads and stores.
#
#   sh tools/dump_sass.sh                              # examples/axpy_vec.tirx, sm_90a
#   sh tools/dump_sass.sh examples/axpy_vec.tirx sm_100a
#
# For axpy_vec the count should read 2 LDG.E.128 and 1 STG.E.128 per thread,
# and no 32-bit LDG.E (the element-wise code had 8). Needs the CUDA toolkit
# (ptxas, cuobjdump) under $CUDA_HOME (default /usr/local/cuda), no GPU; the
# files stay in $OUT (default a fresh directory under /tmp), whose path is
# printed.
set -eu
file=${1:-examples/axpy_vec.tirx}
arch=${2:-sm_90a}
tirxc=${3:-build/bin/tirxc}
cuda=${CUDA_HOME:-/usr/local/cuda}
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/sass.XXXXXX")}
name=$(basename "$file" .tirx)
"$tirxc" "$file" --emit=ptx --arch="$arch" -o "$out/$name.ptx"
"$cuda/bin/ptxas" -arch="$arch" "$out/$name.ptx" -o "$out/$name.cubin"
"$cuda/bin/cuobjdump" -sass "$out/$name.cubin" >"$out/$name.sass"
cat "$out/$name.sass"
echo "== $out/$name.sass: global memory instructions"
grep -oE '(LDG|STG)(\.[A-Z0-9_]+)*' "$out/$name.sass" | sort | uniq -c
