#!/bin/sh
# tvm_cuda_compare.sh - compare tirx-c's kernels with TVM's own CUDA for the
# corpus samples that carry one (KERNELS/*.tvm.cu next to KERNELS/*.tirx).
#
#   tvm_cuda_compare.sh prep TIRXC CORPUS OUT   (here: needs nvcc, no GPU)
#   tvm_cuda_compare.sh run  TIRXC OUT          (on the GPU machine: no nvcc)
#
# prep, per sample: TVM's CUDA built to a cubin for sm_90a (the lent GPU is an
# H200, which loads no sm_80 cubin; the sample's own arch is kept in the table),
# with nvcc for that arch (a sample nvcc cannot build for it, e.g. tcgen05
# code, is marked "sm_100a only"), tirx-c's CUDA for the same arch, and the
# kernel signature of each (`extern "C" __global__ ... name(params)`: the
# launch bounds, name, parameter types and order) compared as text after
# dropping parameter names (and spelling TVM's int64_t / uint64_t as tirx-c's
# long long / unsigned long long: the same 64-bit types to CUDA's ABI). It
# writes OUT/signatures.tsv and copies the
# inputs the run needs into OUT.
# run, per sample whose signatures agree: `tirxc run X.tirx --compare
# X.tvm.cubin:KERNEL` (the same seeded inputs and the same launch for both
# builds, every buffer compared afterwards; floats within --atol ATOL, default
# 0) and writes OUT/gpu.tsv (sample, verdict, the buffer lines, both times).
set -u
mode="${1:-}"
die() { echo "tvm_cuda_compare: $*" >&2; exit 2; }

# The signature of the one kernel defined in a .cu file, parameter names
# dropped: `__launch_bounds__(128) main_kernel(half*, float*)`.
signature() {
  tr '\n' ' ' <"$1" | grep -o 'extern "C" __global__ void[^{;]*{' | head -1 |
    sed -e 's/extern "C" __global__ void //' -e 's/ *{$//' |
    sed -E -e 's/__restrict__//g' -e 's/ +/ /g' \
      -e 's/([(,]) */\1/g' -e 's/ ([A-Za-z_][A-Za-z0-9_]*)([,)])/\2/g' -e 's/ \*/*/g' \
      -e 's/([(,])uint64_t([,)*])/\1unsigned long long\2/g' -e 's/([(,])int64_t([,)*])/\1long long\2/g'
}

# Compact the signature's parameter types the same way for both compilers:
# `half* __restrict__ A_ptr` and `half *A` both become `half*`.
kernel_name() { echo "$1" | sed -E -e 's/\([^()]*\)$//' -e 's/.* //'; }

prep() {
  tirxc="$1" corpus="$2" out="$3"
  command -v nvcc >/dev/null || die "prep needs nvcc on PATH"
  mkdir -p "$out/k" || exit 2
  printf 'sample\tarch\ttvm_signature\ttirx_signature\tverdict\n' >"$out/signatures.tsv"
  for cu in "$corpus"/kernels/*.tvm.cu; do
    base=$(basename "$cu" .tvm.cu)
    tirx="$corpus/kernels/$base.tirx"
    arch=sm_90a # what the lent H200 runs (an sm_80 cubin does not load on it)
    cp "$tirx" "$out/k/$base.tirx"
    verdict=ok
    if ! nvcc -cubin -arch="$arch" -o "$out/k/$base.tvm.cubin" "$cu" 2>"$out/k/$base.nvcc.log"; then
      verdict="sm_100a only (nvcc cannot build TVM's CUDA for $arch)"
    fi
    if ! "$tirxc" "$tirx" --emit=cuda --arch="$arch" -o "$out/k/$base.tirx.cu" \
      2>"$out/k/$base.tirxc.log"; then
      verdict="tirx-c does not compile it: $(head -1 "$out/k/$base.tirxc.log" | cut -c1-160)"
      : >"$out/k/$base.tirx.cu"
    fi
    ts=$(signature "$cu")
    ms=$(signature "$out/k/$base.tirx.cu")
    if [ "$verdict" = ok ] && [ "$ts" != "$ms" ]; then verdict="signatures differ"; fi
    printf '%s\t%s\t%s\t%s\t%s\n' "$base" "$arch" "$ts" "$ms" "$verdict" >>"$out/signatures.tsv"
  done
  awk -F'\t' 'NR > 1 { n[$5]++ } END { for (v in n) printf "%4d  %s\n", n[v], v }' \
    "$out/signatures.tsv" | sort -rn
}

run() {
  tirxc="$1" out="$2" atol="${ATOL:-0}"
  [ -f "$out/signatures.tsv" ] || die "no $out/signatures.tsv: run prep first"
  printf 'sample\tarch\tverdict\tdetail\n' >"$out/gpu.tsv"
  tail -n +2 "$out/signatures.tsv" | while IFS="$(printf '\t')" read -r base arch ts ms verdict; do
    [ "$verdict" = ok ] || continue
    log="$out/k/$base.run.log"
    timeout 60 "$tirxc" run "$out/k/$base.tirx" --arch "$arch" --repeat 5 --atol "$atol" \
      --compare "$out/k/$base.tvm.cubin:$(kernel_name "$ts")" >"$log" 2>&1
    rc=$?
    case $rc in
      0) v=agree ;;
      124) v=timeout ;;
      *) if grep -q '^compare: MISMATCH' "$log"; then v=MISMATCH; else v="error (exit $rc)"; fi ;;
    esac
    # tirx-c's build launches first; when it fails, TVM's is run alone first
    # (in a fresh process: a fault spoils the context) to tell whether the
    # sample faults with either compiler.
    if [ "${v#error}" != "$v" ] && ! grep -q 'the --compare kernel' "$log"; then
      timeout 60 "$tirxc" run "$out/k/$base.tirx" --arch "$arch" --repeat 1 --compare-first \
        --compare "$out/k/$base.tvm.cubin:$(kernel_name "$ts")" >"$log.tvm-first" 2>&1
      if grep -q 'the --compare kernel' "$log.tvm-first"; then
        v="$v; TVM's build fails too"
      elif grep -q '^compare:' "$log.tvm-first" || grep -q 'tirxc run:' "$log.tvm-first"; then
        v="$v; TVM's build runs"
      fi
    fi
    detail=$(grep -v 'checksum' "$log" | tr '\n' ';' | cut -c1-400)
    printf '%s\t%s\t%s\t%s\n' "$base" "$arch" "$v" "$detail" >>"$out/gpu.tsv"
  done
  awk -F'\t' 'NR > 1 { n[$3]++ } END { for (v in n) printf "%4d  %s\n", n[v], v }' "$out/gpu.tsv"
}

case "$mode" in
  prep) [ $# -eq 4 ] || die "usage: $0 prep TIRXC CORPUS OUT"; prep "$2" "$3" "$4" ;;
  run) [ $# -eq 3 ] || die "usage: $0 run TIRXC OUT"; run "$2" "$3" ;;
  *) die "usage: $0 prep TIRXC CORPUS OUT | run TIRXC OUT" ;;
esac
