#!/bin/sh
# vector_ptx.sh TIRXC SRCDIR - vector code is vector in the PTX: an aligned
# contiguous load read lane by lane is one ld.global.v4 (v8 on sm_100), not
# one ld.global per lane, and ptxas accepts the PTX (docs/codegen.md
# "Vectors", Memory). Run by ctest (cuda.vector_ptx).
#
# Exit status: 0 all checks hold, 1 any fails, 77 (ctest's SKIP_RETURN_CODE)
# when NVRTC cannot be loaded (no CUDA toolkit).
set -u
TIRXC=${1:?usage: vector_ptx.sh TIRXC SRCDIR}
SRC=${2:?usage: vector_ptx.sh TIRXC SRCDIR}
cuda=${CUDA_HOME:-/usr/local/cuda}
ptxas=$cuda/bin/ptxas
[ -x "$ptxas" ] || ptxas=$(command -v ptxas 2>/dev/null || true)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/vector_ptx.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# ptx FILE ARCH NAME: FILE's PTX for ARCH in $TMP/NAME.ptx, assembled by ptxas.
ptx() {
  if ! "$TIRXC" "$1" --emit=ptx --arch="$2" -o "$TMP/$3.ptx" 2>"$TMP/err"; then
    if grep -q "NVRTC" "$TMP/err"; then
      echo "SKIP: $(cat "$TMP/err")"
      exit 77
    fi
    fail "$3: --emit=ptx --arch=$2 failed"
    sed 's/^/    /' "$TMP/err"
    return
  fi
  if [ -n "$ptxas" ] && ! "$ptxas" -arch="$2" "$TMP/$3.ptx" -o "$TMP/$3.cubin" 2>"$TMP/err"; then
    fail "$3: ptxas -arch=$2 rejects the PTX"
    sed 's/^/    /' "$TMP/err"
  fi
}

# count NAME COUNT REGEX WHAT: exactly COUNT lines of NAME's PTX match REGEX.
count() {
  n=$(grep -cE "$3" "$TMP/$1.ptx" 2>/dev/null)
  [ "$n" = "$2" ] || { fail "$1: $n $4, expected $2"; grep -E 'ld\.|st\.' "$TMP/$1.ptx" | sed 's/^/    /'; }
}

# axpy, T.vectorized(4): X and Y one 128-bit load each, Y one 128-bit store,
# and no 32-bit float access at all (the old code read each lane: 8 loads).
ptx "$SRC/examples/axpy_vec.tirx" sm_90a axpy
count axpy 2 '^[[:space:]]*ld\.global(\.nc)?\.v4\.f32' "128-bit loads"
count axpy 1 '^[[:space:]]*st\.global\.v4\.f32' "128-bit stores"
count axpy 0 '^[[:space:]]*(ld|st)\.global(\.nc)?\.f32' "32-bit float accesses"

# Eight halves in a uint4: X and Y one 128-bit load each (vectorized_relu_half's
# haxpy), four floats in the relu kernel's chunks: one each.
ptx "$SRC/tests/golden/lowering/vectorized_relu_half.tirx" sm_90a half
count half 2 '^[[:space:]]*ld\.global(\.nc)?\.v4\.u32' "128-bit loads of halves"
count half 2 '^[[:space:]]*ld\.global(\.nc)?\.v4\.f32' "128-bit loads of floats"
count half 0 '^[[:space:]]*ld\.global(\.nc)?\.(f32|u32|u16|b16)' "scalar loads"

# Alignment decides: tests/golden/cuda/vec_align.tirx's unaligned bases stay
# element by element, the aligned ones are vectors; nothing misaligned is
# assembled (ptxas above).
ptx "$SRC/tests/golden/cuda/vec_align.tirx" sm_90a align
n=$(grep -cE '^[[:space:]]*ld\.global(\.nc)?\.v[24]\.' "$TMP/align.ptx" 2>/dev/null)
[ "${n:-0}" -ge 8 ] || fail "align: only $n vector loads"

# 256-bit loads where the target has them.
ptx "$SRC/tests/golden/cuda/vec_wide_sm100.tirx" sm_100a wide
n=$(grep -cE '^[[:space:]]*ld\.global(\.nc)?\.v8\.(f32|b32)' "$TMP/wide.ptx" 2>/dev/null)
[ "${n:-0}" -ge 1 ] || fail "wide: no 256-bit load on sm_100a"

# The memory-bound kernels of bench/memory (tile primitives and native): each
# global access of a 16-byte chunk is one 128-bit load or store, registers
# included (T.tile.copy into a local array: one ld.global.v4, the lanes moved
# in registers), and no 16-bit global access is left. The counts are the
# chunks each thread moves: copy 16 in and out, cast 4, axpy 8 in 4 out,
# rmsnorm 8 in (X and W) 4 out, softmax 4 and 4.
for k in copy:16:16 cast:4:4 axpy:8:4 rmsnorm:8:4 softmax:4:4; do
  name=${k%%:*}
  rest=${k#*:}
  for form in tile native; do
    ptx "$SRC/bench/memory/${name}_$form.tirx" sm_90a "${name}_$form"
    count "${name}_$form" "${rest%%:*}" '^[[:space:]]*ld\.global(\.nc)?\.v4\.' "128-bit loads"
    count "${name}_$form" "${rest#*:}" '^[[:space:]]*st\.global\.v4\.' "128-bit stores"
    count "${name}_$form" 0 '^[[:space:]]*(ld|st)\.global(\.nc)?\.(u16|b16|f16|s16)' "16-bit accesses"
  done
done

[ "$failures" -eq 0 ] && echo "vector_ptx: ok" && exit 0
echo "vector_ptx: $failures failure(s)"
exit 1
