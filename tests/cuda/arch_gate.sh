#!/bin/sh
# arch_gate.sh TIRXC SRCDIR - the architecture requirements of TVM's printed
# PTX form (target/cuda/ptx_requires.def) hold both ways: the kernels that
# are located errors on sm_90a (tests/golden/diagnostics/arch_*.tirx, TVM's
# own tests among them) compile for sm_100a and ptxas accepts the PTX, and
# the sm_90 forms (arch_gate/sm90_forms.tirx) are located errors on sm_80
# and assemble for sm_90a. Run by ctest (cuda.arch_gate). Must not check
# message text beyond the arch it names: the goldens do that.
#
# Exit status: 0 all hold, 1 any fails, 77 (SKIP) without NVRTC or ptxas.
set -u
TIRXC=${1:?usage: arch_gate.sh TIRXC SRCDIR}
SRC=${2:?usage: arch_gate.sh TIRXC SRCDIR}
cuda=${CUDA_HOME:-/usr/local/cuda}
ptxas=$cuda/bin/ptxas
[ -x "$ptxas" ] || ptxas=$(command -v ptxas 2>/dev/null || true)
[ -n "$ptxas" ] || { echo "SKIP: no ptxas"; exit 77; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/arch_gate.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# accepts FILE ARCH: tirxc's PTX of FILE for ARCH assembles with ptxas.
accepts() {
  name=$(basename "$1" .tirx)
  if ! "$TIRXC" "$1" --emit=ptx --arch="$2" -o "$TMP/$name.ptx" 2>"$TMP/err"; then
    grep -q "NVRTC" "$TMP/err" && { echo "SKIP: $(cat "$TMP/err")"; exit 77; }
    fail "$name: --emit=ptx --arch=$2 failed"
    sed 's/^/    /' "$TMP/err"
    return
  fi
  "$ptxas" -arch="$2" "$TMP/$name.ptx" -o "$TMP/$name.cubin" 2>"$TMP/err" ||
    { fail "$name: ptxas -arch=$2 rejects the PTX"; sed 's/^/    /' "$TMP/err"; }
}

# rejects FILE ARCH N NEED: N located errors "... needs NEED" for ARCH.
rejects() {
  name=$(basename "$1" .tirx)
  if "$TIRXC" "$1" --emit=cuda --arch="$2" -o "$TMP/$name.cu" 2>"$TMP/err"; then
    fail "$name: compiles for $2"
    return
  fi
  n=$(grep -c "error: .* needs $4" "$TMP/err")
  [ "$n" = "$3" ] || { fail "$name: $n errors naming $4 on $2, expected $3"; sed 's/^/    /' "$TMP/err"; }
}

for k in arch_mixed_precision arch_tcgen05_printed arch_wide_ldst; do
  accepts "$SRC/tests/golden/diagnostics/$k.tirx" sm_100a
done
rejects "$SRC/tests/cuda/arch_gate/sm90_forms.tirx" sm_80 7 "sm_90 or newer"
accepts "$SRC/tests/cuda/arch_gate/sm90_forms.tirx" sm_90a

[ "$failures" = 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "arch_gate: all checks hold"
