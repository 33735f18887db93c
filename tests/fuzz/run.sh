#!/bin/sh
# Run the libFuzzer targets of a TIRX_FUZZ build (docs/fuzzing.md).
#
#   sh tests/fuzz/run.sh BUILD_DIR SECONDS [TARGET...]
#
# TARGET is parse, compile, exe or cache (default: all four). Each runs for
# SECONDS (after its seed corpus), FUZZ_JOBS at a time (default: the number
# of CPUs, at most 4). FUZZ_RUNS=N ends each target after N inputs (its
# seeds included) and FUZZ_SEED=S fixes libFuzzer's random seed: with both,
# a run tries the same inputs on every machine (what `make test` does, so
# that the check CI runs is the one a developer ran); SECONDS then only caps
# a slow machine. Without them (make fuzz) each run explores anew. Seeds: the tree's golden .tirx files and, when it is
# there, the TVM corpus at ../shared/tvm-corpus (parse, compile); executables
# and cache entries compiled from the tree's kernels by fuzz_make_seeds (exe,
# cache). Everything goes under BUILD_DIR/fuzz: corpus/<target> (inputs the
# fuzzer found, kept between runs), crashes/<target> (reproducers), logs.
# Exits 1 when a target found a crash, naming the reproducer. Must not
# write into the source tree.
set -eu
build=$1
seconds=$2
shift 2
targets=${*:-parse compile exe cache}
src=$(cd "$(dirname "$0")/../.." && pwd)
out=$build/fuzz
bin=$build/bin
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
runs=${FUZZ_RUNS:-0}
seed=${FUZZ_SEED:-0}
[ "$jobs" -gt 4 ] && jobs=4
mkdir -p "$out/logs" "$out/seeds"

# The .tirx files of a tree, copied with their folders (libFuzzer reads
# seed directories recursively).
collect_tirx() {
  rm -rf "$2"
  mkdir -p "$2"
  (cd "$1" && find . -name '*.tirx' -type f | tar -cf - -T -) | (cd "$2" && tar -xf -)
}
collect_tirx "$src/tests/golden" "$out/seeds/golden"
tvm=$src/../shared/tvm-corpus/kernels
tvm_seeds=""
if [ -d "$tvm" ]; then
  collect_tirx "$tvm" "$out/seeds/tvm"
  tvm_seeds=$out/seeds/tvm
  echo "fuzz: seeding parse/compile with $(ls "$tvm_seeds" | wc -l) TVM corpus programs"
fi
rm -rf "$out/seeds/made"
"$bin/fuzz_make_seeds" "$out/seeds/made" "$src"/examples/*.tirx \
  $(ls "$src"/tests/golden/lowering/*.tirx | grep -v '\.expected\.') 2>"$out/logs/make_seeds.log"

# run_target NAME: fuzz one target for $seconds; its exit status is the fuzzer's.
run_target() {
  t=$1
  case $t in
  parse | compile) dict=$src/tests/fuzz/tirx.dict seeds="$out/seeds/golden $tvm_seeds" ;;
  exe) dict=$src/tests/fuzz/exe.dict seeds="$out/seeds/made/exe" ;;
  cache) dict=$src/tests/fuzz/exe.dict seeds="$out/seeds/made/cache $out/seeds/made/exe" ;;
  *) echo "fuzz: unknown target '$t' (parse, compile, exe, cache)" >&2; return 2 ;;
  esac
  rm -rf "$out/crashes/$t"
  # A repeatable run starts from the seeds alone, not from what earlier runs found.
  corpus=$out/corpus/$t
  if [ "$runs" != 0 ]; then corpus=$out/corpus-repeatable/$t; rm -rf "$corpus"; fi
  mkdir -p "$corpus" "$out/crashes/$t"
  # shellcheck disable=SC2086
  "$bin/fuzz_$t" -max_total_time="$seconds" -runs="$runs" -seed="$seed" -timeout=20 -rss_limit_mb=2048 \
    -print_final_stats=1 -dict="$dict" -artifact_prefix="$out/crashes/$t/" \
    "$corpus" $seeds >"$out/logs/$t.log" 2>&1
}

report() {
  t=$1
  rc=$2
  stats=$(grep -E '^stat::number_of_executed_units' "$out/logs/$t.log" | awk '{print $2}')
  if [ "$rc" = 0 ]; then
    limit="${seconds} s"
    [ "$runs" != 0 ] && limit="$limit, $runs runs, seed $seed"
    echo "fuzz: $t: ok (${stats:-?} runs; limit $limit; log $out/logs/$t.log)"
    return 0
  fi
  echo "fuzz: $t: FAILED (exit $rc); from $out/logs/$t.log:"
  # The report from its first line (a sanitizer's, a failed check's), else the end.
  first=$(grep -n -m1 -E '==ERROR|runtime error|fuzz check failed|ERROR: libFuzzer' \
    "$out/logs/$t.log" | cut -d: -f1)
  if [ -n "$first" ]; then
    tail -n "+$first" "$out/logs/$t.log" | head -n 40
  else
    tail -n 40 "$out/logs/$t.log"
  fi | sed 's/^/    /'
  for c in "$out/crashes/$t"/*; do
    [ -f "$c" ] && echo "fuzz: $t: reproducer $c (run: $bin/fuzz_$t $c)"
  done
  return 1
}

failed=0
set -- $targets
while [ $# -gt 0 ]; do
  batch=""
  n=0
  while [ $# -gt 0 ] && [ "$n" -lt "$jobs" ]; do
    run_target "$1" &
    batch="$batch $1:$!"
    n=$((n + 1))
    shift
  done
  for tp in $batch; do
    rc=0
    wait "${tp#*:}" || rc=$?
    report "${tp%%:*}" "$rc" || failed=1
  done
done
exit $failed
