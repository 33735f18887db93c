#!/bin/sh
# cli_test.sh TIRXC SRCDIR - end-to-end checks of the tirxc command line:
# exit codes, option parsing, --list-passes, --emit=lowered and the pipeline
# options, lowered expectations in the golden runner and the refusal of s_tir
# blocks. Run by ctest.
# Checks only behaviour that holds whatever the passes do to scale.tirx
# (a kernel without tile primitives), tile_copy_layout.tirx (one with) and
# the dispatch-tile golden no_variant_applies.tirx (one no variant takes).
set -u
TIRXC=$1
SRC=$2
SCALE=$SRC/examples/scale.tirx
TILE=$SRC/examples/tile_copy_layout.tirx
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# expect CODE DESCRIPTION -- COMMAND...: run it, keep stdout/stderr in $TMP/out, $TMP/err.
expect() {
  code=$1
  what=$2
  shift 3
  "$@" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  if [ "$rc" != "$code" ]; then
    fail "$what: exit $rc, expected $code"
    sed 's/^/    /' "$TMP/err" >&2
  fi
}

# has FILE TEXT DESCRIPTION: FILE contains the fixed string TEXT.
has() {
  grep -qF -- "$2" "$1" || { fail "$3: no '$2' in $(basename "$1")"; sed 's/^/    /' "$1" >&2; }
}

# ---- help, version, list ----------------------------------------------------------
expect 0 "--help" -- "$TIRXC" --help
for opt in --emit=KIND lowered cuda ptx cubin executable --host-only --target=cuda --arch=ARCH sm_90a sm_120a -O0 \
    --cuda-path=DIR --list-passes --disable-pass=NAME --print-after=NAME --print-after-all \
    --verify-each --time-passes --time -v --version golden; do
  has "$TMP/out" "$opt" "--help mentions $opt"
done
expect 0 "--version" -- "$TIRXC" --version
has "$TMP/out" "tirxc " "--version"

expect 0 "--list-passes" -- "$TIRXC" --list-passes
NPASSES=$(wc -l <"$TMP/out")
# One line per pass; the exact set grows as passes are added.
[ "$NPASSES" -ge 7 ] || fail "--list-passes: expected at least 7 lines"
grep -q '^cse ' "$TMP/out" || fail "--list-passes: no cse"
[ "$(head -n1 "$TMP/out" | cut -d' ' -f1)" = lower-sblock ] || fail "--list-passes: first is lower-sblock"
for p in lower-tirx flatten-buffer simplify verify-memory split-host-device make-packed-api; do
  has "$TMP/out" "$p " "--list-passes lists $p"
done

# ---- usage errors: exit 2 --------------------------------------------------------
expect 2 "--host-only without --emit=executable" -- "$TIRXC" "$SCALE" --host-only --emit=ptx
has "$TMP/err" "--host-only needs --emit=executable" "--host-only's usage error"
# ---- an executable file, host-only (no NVRTC needed) ---------------------------------------
expect 0 "--emit=executable --host-only" -- "$TIRXC" "$SCALE" --emit=executable --host-only \
  --arch=sm_90a -o "$TMP/scale.tirxexe"
head -c 8 "$TMP/scale.tirxexe" | grep -q TIRXEXE || fail "--emit=executable: no TIRXEXE magic"
expect 0 "--emit=executable for two architectures" -- "$TIRXC" "$SCALE" --emit=executable \
  --host-only --arch=sm_80,sm_90a -o "$TMP/scale2.tirxexe"
grep -a -q "arch=sm_80,sm_90a" "$TMP/scale2.tirxexe" || fail "two architectures: not in the options"
expect 2 "several architectures without --emit=executable" -- "$TIRXC" "$SCALE" --emit=ptx \
  --arch=sm_90a,sm_100a
has "$TMP/err" "several architectures in --arch need --emit=executable" "--arch list with ptx"
expect 2 "an architecture named twice" -- "$TIRXC" "$SCALE" --emit=executable --arch=sm_90a,sm_90a
has "$TMP/err" "--arch=sm_90a,sm_90a: architecture 'sm_90a' named twice" "--arch twice"
expect 2 "--list-passes with an argument" -- "$TIRXC" --list-passes extra
has "$TMP/err" "--list-passes takes no input file (got 'extra')" "--list-passes extra"
[ -s "$TMP/out" ] && fail "--list-passes extra still listed the passes"
expect 5 "run: a missing file before the GPU" -- "$TIRXC" run "$TMP/none.tirx"
has "$TMP/err" "cannot read '$TMP/none.tirx': No such file or directory" "run a missing file"
expect 2 "run: a negative --atol" -- "$TIRXC" run "$SCALE" --compare x.cubin --atol -1
has "$TMP/err" "[--compare IMAGE[:KERNEL] [--atol X] [--compare-first]]" "run's usage names --compare and --compare-first"
expect 2 "run: --compare without an image" -- "$TIRXC" run "$SCALE" --compare
has "$TMP/err" "unknown or incomplete option '--compare'" "run --compare without a value"
expect 2 "no input" -- "$TIRXC"
has "$TMP/err" "no input file" "no input"
expect 2 "bad --arch" -- "$TIRXC" "$SCALE" --arch=sm_75
has "$TMP/err" "--arch=sm_75: unknown architecture 'sm_75'" "bad --arch"
has "$TMP/err" "sm_90a" "bad --arch lists the supported ones"
expect 2 "--arch without value" -- "$TIRXC" "$SCALE" --arch
expect 2 "bad --print-after" -- "$TIRXC" "$SCALE" --emit=lowered --print-after=nope
has "$TMP/err" "unknown pass 'nope'" "bad --print-after"
has "$TMP/err" "(passes: lower-sblock, lower-tirx, unify-thread-binding, dispatch-tile, " "valid pass names"
has "$TMP/err" ", split-host-device" "valid pass names"
expect 2 "bad --disable-pass" -- "$TIRXC" "$SCALE" --emit=lowered --disable-pass=inline
expect 2 "bad --emit" -- "$TIRXC" "$SCALE" --emit=llvm
has "$TMP/err" "unknown --emit kind 'llvm'" "bad --emit"
expect 2 "bad --target" -- "$TIRXC" "$SCALE" --target=rocm
has "$TMP/err" "only target is 'cuda'" "bad --target"
expect 2 "bad -O" -- "$TIRXC" "$SCALE" -O4
expect 2 "pipeline option with --emit=tirx" -- "$TIRXC" "$SCALE" --print-after-all
has "$TMP/err" "needs --emit=lowered" "pipeline option with --emit=tirx"
expect 2 "unknown option" -- "$TIRXC" "$SCALE" --frobnicate
expect 2 "two inputs" -- "$TIRXC" "$SCALE" "$TILE"

# ---- --dialect (docs/dialects.md) --------------------------------------------------
expect 0 "--help" -- "$TIRXC" --help
has "$TMP/out" "--dialect=D" "--help mentions --dialect"
expect 2 "bad --dialect" -- "$TIRXC" "$SCALE" --dialect=relax
has "$TMP/err" "option '--dialect' takes tvm or tirx" "bad --dialect"
expect 2 "--dialect with --emit=cuda" -- "$TIRXC" "$SCALE" --emit=cuda --dialect=tirx
has "$TMP/err" "--dialect needs --emit=tirx or --emit=lowered" "--dialect with --emit=cuda"
expect 0 "--dialect=tirx" -- "$TIRXC" "$SCALE" --dialect=tirx -o "$TMP/scale_tirx.tirx"
has "$TMP/scale_tirx.tirx" "@T.function" "--dialect=tirx prints @T.function"
has "$TMP/scale_tirx.tirx" "with T.device_entry():" "--dialect=tirx prints the entry region"
expect 0 "the tirx print reads back in its dialect" -- "$TIRXC" "$TMP/scale_tirx.tirx"
cmp -s "$TMP/out" "$TMP/scale_tirx.tirx" || fail "--dialect=tirx output is not a fixed point"
# scale.tirx's T.device_entry() comes back as TVM's print of it, T.attr({"tirx.device_entry": ..}).
expect 0 "--dialect=tvm converts back" -- "$TIRXC" "$TMP/scale_tirx.tirx" --dialect tvm
has "$TMP/out" "T.attr({\"tirx.device_entry\": T.bool(True)})" "--dialect=tvm entry"
cp "$TMP/out" "$TMP/scale_back.tirx"
expect 0 "and to tirx again" -- "$TIRXC" "$TMP/scale_back.tirx" --dialect=tirx
cmp -s "$TMP/out" "$TMP/scale_tirx.tirx" || fail "tvm -> tirx -> tvm -> tirx is not a fixed point"
expect 0 "--emit=lowered --dialect=tirx" -- "$TIRXC" "$SCALE" --emit=lowered --dialect=tirx
has "$TMP/out" "@T.function" "--emit=lowered --dialect=tirx"

# ---- compiling: exit 0 and 1 ---------------------------------------------------------
expect 0 "tirx" -- "$TIRXC" "$SCALE"
has "$TMP/out" "def scale(" "--emit=tirx prints the module"
expect 0 "--emit=lowered" -- "$TIRXC" --emit=lowered "$SCALE" --target=cuda --arch=sm_100a
has "$TMP/out" "def scale" "--emit=lowered prints the module"
expect 0 "--emit lowered with options in any order" -- \
  "$TIRXC" --verify-each -O1 --emit lowered --print-after=simplify "$SCALE" --print-after lower-tirx
has "$TMP/err" "# after lower-tirx" "--print-after=lower-tirx"
has "$TMP/err" "# after simplify" "--print-after=simplify"
grep -qF "# after flatten-buffer" "$TMP/err" && fail "--print-after prints only the passes named"
expect 0 "--print-after-all with a disabled pass" -- \
  "$TIRXC" "$SCALE" --emit=lowered --print-after-all --disable-pass=flatten-buffer
[ "$(grep -c '^# after ' "$TMP/err")" -eq $((NPASSES - 1)) ] ||
  fail "--print-after-all: all passes but the disabled one ran"
expect 0 "--time-passes" -- "$TIRXC" "$SCALE" --emit=lowered --time-passes
has "$TMP/err" "(verification)" "--time-passes table"
has "$TMP/err" "total" "--time-passes table"
expect 0 "-v -O0" -- "$TIRXC" "$SCALE" --emit=lowered -v -O0 --arch=sm_90
has "$TMP/err" "tirxc: parse " "-v stages"
has "$TMP/err" "arch sm_90 (--arch), -O0" "-v target"
has "$TMP/err" "simplify (off at -O0)" "-v pass list"
expect 0 "--time" -- "$TIRXC" "$SCALE" --emit=lowered --time
has "$TMP/err" ", lower " "--time with the pipeline"

expect 0 "tile primitives over a lane-distributed fragment" -- "$TIRXC" "$TILE" --emit=lowered \
  --explain-dispatch
has "$TMP/err" "tile_copy_layout.tirx:17:5: T.warp.copy -> vec_auto (priority 10)" \
  "a warp copy into registers laid out over lanes"
TILE_BAD=$SRC/tests/golden/passes/dispatch-tile/no_variant_applies.tirx
expect 1 "tile primitive" -- "$TIRXC" "$TILE_BAD" --emit=lowered
has "$TMP/err" "no_variant_applies.tirx:8:5: error: no cuda variant of T.tile.copy applies (scope thread):" \
  "a tile primitive no variant takes"
has "$TMP/err" "  vec_auto     10       copy needs equal dtypes" \
  "the dispatch table names each variant"
TILE_T=$SRC/tests/golden/passes/dispatch-tile/copy_2d.tirx
expect 0 "--explain-dispatch" -- "$TIRXC" "$TILE_T" --emit=lowered --explain-dispatch
has "$TMP/err" "copy_2d.tirx:12:5: T.tile.copy -> vec_auto (priority 10)" "--explain-dispatch names the choice"
printf 'from tvm.script import tirx as T\n@T.prim_func\ndef f(A: T.Buffer((4,), "float32")):\n    A[0] = C[0]\n' >"$TMP/bad.tirx"
expect 1 "input error" -- "$TIRXC" "$TMP/bad.tirx" --emit=lowered -o "$TMP/bad.out"
[ -e "$TMP/bad.out" ] && fail "a failed compile must not create -o's file"
# s_tir blocks: printed back; compiled by lower-sblock, except a region
# match_buffer inside a block: one located error.
STIR=$SRC/tests/cli/sblock_match_refused.tirx
expect 0 "s_tir blocks print" -- "$TIRXC" "$STIR"
has "$TMP/out" '        with T.sblock("row"):' "a written block prints back"
for emit in lowered cuda ptx; do
  expect 1 "s_tir match_buffer --emit=$emit" -- "$TIRXC" "$STIR" --emit=$emit
  has "$TMP/err" "sblock_match_refused.tirx:10:19: error: T.match_buffer of a region inside a block is parsed and printed but not lowered by tirx-c" \
    "s_tir match_buffer refusal (--emit=$emit)"
  [ "$(grep -c 'error:' "$TMP/err")" -eq 1 ] || fail "s_tir refusal: exactly one error (--emit=$emit)"
done
expect 0 "-o" -- "$TIRXC" "$SCALE" --emit=lowered -o "$TMP/scale.low"
[ -s "$TMP/scale.low" ] || fail "-o wrote nothing"
expect 5 "missing file" -- "$TIRXC" "$TMP/nope.tirx"

# ---- legalize-bf16-fp8: fp8 needs sm_89; fp4/fp6 convert in software everywhere -------
FP8="$TMP/fp8.tirx"
printf '@T.prim_func\ndef f(A: T.Buffer((4,), "float8_e4m3fn"), O: T.Buffer((4,), "float32")):\n    T.device_entry(grid=(1, 1, 1), block=(4, 1, 1))\n    tx = T.launch_thread("threadIdx.x", 4)\n    O[tx] = T.Cast("float32", A[tx])\n' >"$FP8"
expect 1 "fp8 on sm_80" -- "$TIRXC" "$FP8" --emit=lowered --arch=sm_80
has "$TMP/err" "fp8.tirx:2:7: error: float8_e4m3fn needs sm_89 or newer (target is sm_80)" "fp8 on sm_80"
expect 0 "fp8 on sm_89" -- "$TIRXC" "$FP8" --emit=cuda --arch=sm_89
FP4="$TMP/fp4.tirx"
printf '@T.prim_func\ndef f(A: T.Buffer((4,), "float4_e2m1fn"), O: T.Buffer((4,), "float32")):\n    T.device_entry(grid=(1, 1, 1), block=(4, 1, 1))\n    tx = T.launch_thread("threadIdx.x", 4)\n    O[tx] = T.Cast("float32", A[tx])\n' >"$FP4"
expect 0 "fp4 on sm_80" -- "$TIRXC" "$FP4" --emit=cuda --arch=sm_80

# ---- golden runner with lowered expectations ------------------------------------------
mkdir "$TMP/g"
cp "$SCALE" "$TMP/g/"
expect 0 "golden --update" -- "$TIRXC" golden --update "$TMP/g"
[ -e "$TMP/g/scale.expected.lowered.tirx" ] && fail "lowered expectation created without marker"
"$TIRXC" "$SCALE" --emit=lowered >"$TMP/g/scale.expected.lowered.tirx"
expect 0 "golden with a lowered expectation" -- "$TIRXC" golden "$TMP/g"
has "$TMP/out" "1 passed, 0 failed" "golden with a lowered expectation"
echo "# stale" >>"$TMP/g/scale.expected.lowered.tirx"
expect 1 "golden with a stale lowered expectation" -- "$TIRXC" golden "$TMP/g"
has "$TMP/err" "lowered module (--emit=lowered) differs" "stale lowered expectation"
expect 0 "golden --update rewrites it" -- "$TIRXC" golden --update "$TMP/g"
expect 0 "golden after the update" -- "$TIRXC" golden "$TMP/g"
mkdir "$TMP/lg"
touch "$TMP/lg/.lowering"
cp "$TILE_BAD" "$TMP/lg/"
expect 0 "lowering dir: an error case" -- "$TIRXC" golden --update "$TMP/lg"
has "$TMP/lg/no_variant_applies.expected.err" "no cuda variant of T.tile.copy applies" "lowering error expectation"
expect 0 "lowering dir: run" -- "$TIRXC" golden "$TMP/lg"

# ---- each diagnostic once, all the way to PTX -----------------------------------------
# The golden runner refuses a repeated error in its cases (it emits CUDA);
# the same through --emit=ptx, for the cases that used to repeat one.
for f in "$SRC"/tests/golden/diagnostics/*.tirx; do
  expect 1 "$(basename "$f") --emit=ptx" -- "$TIRXC" "$f" --emit=ptx --arch=sm_90a
  twice=$(grep -E '^[^ ].*: (error|warning|internal error)' "$TMP/err" | sort | uniq -d)
  [ -z "$twice" ] || fail "$(basename "$f") --emit=ptx reports twice: $twice"
done

# ---- a flat chain of 2,000 terms goes through the whole pipeline --------------
# (a regression test: 1,000 terms used to be refused as "nesting too deep";
# the limit is the tree's depth, 2048, which the stack of every pass holds).
flat_sum() {
  printf '# from tvm.script import tirx as T\n\n@T.prim_func\n'
  printf 'def s(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):\n'
  printf '    T.device_entry()\n    bx = T.cta_id([1])\n    tx = T.thread_id([64])\n'
  printf '    B[tx] = A[0]'
  i=1
  while [ $i -lt "$1" ]; do printf ' + A[%d]' $((i % 64)); i=$((i + 1)); done
  printf '\n'
}
flat_sum 2000 >"$TMP/sum2000.tirx"
expect 0 "a flat sum of 2000 terms" -- "$TIRXC" "$TMP/sum2000.tirx" --emit=cuda --verify-each
grep -q "A_ptr\[63\]" "$TMP/out" || fail "a flat sum of 2000 terms: no A_ptr[63] in the CUDA"
flat_sum 2100 >"$TMP/sum2100.tirx"
expect 1 "a flat sum of 2100 terms" -- "$TIRXC" "$TMP/sum2100.tirx"
has "$TMP/err" "sum2100.tirx:8:13: error: too deeply nested (limit 2048 levels" "2100 terms"

# ---- parameter limits (docs/limits.md) --------------------------------------------
# params N DIMS: a function of N float32 buffers, each of DIMS symbolic dims.
params() {
  awk -v n="$1" -v d="$2" 'BEGIN {
    print "# from tvm.script import tirx as T\n"
    for (i = 0; i < n; i++) for (k = 0; k < d; k++) printf "m%d_%d = T.int32()\n", i, k
    printf "\n@T.prim_func\ndef p("
    for (i = 0; i < n; i++) {
      printf "%sA%d: T.Buffer((", (i ? ", " : ""), i
      for (k = 0; k < d; k++) printf "%sm%d_%d", (k ? ", " : ""), i, k
      printf ",), \"float32\")"
    }
    print "):\n    T.device_entry()\n    bx = T.cta_id([1])\n    tx = T.thread_id([64])"
    for (i = 0; i < n; i++) printf "    A%d[tx%s] = T.float32(1.0)\n", i, (d > 1 ? ", 0" : "")
  }'
}
params 256 1 >"$TMP/p256.tirx"
expect 0 "256 parameters" -- "$TIRXC" "$TMP/p256.tirx" --emit=cuda
params 257 1 >"$TMP/p257.tirx"
expect 1 "257 parameters" -- "$TIRXC" "$TMP/p257.tirx" --emit=cuda
has "$TMP/err" "p257.tirx:261:1: error: function 'p' has 257 parameters (limit 256)" "257 parameters"
params 200 2 >"$TMP/p200x2.tirx"
expect 1 "too many argument checks" -- "$TIRXC" "$TMP/p200x2.tirx" --emit=cuda
has "$TMP/err" "error: function 'p' needs more than 4096 argument checks" "argument checks"

# ---- -o: regular files are replaced atomically, anything else written through ---
# (a regression test: -o used to rename a temporary over whatever PATH was,
# so as root `-o /dev/null` replaced /dev/null with a regular file).
mkdir "$TMP/o"
"$TIRXC" "$SCALE" >"$TMP/o/expected"
expect 0 "-o a new file" -- "$TIRXC" "$SCALE" -o "$TMP/o/new.tirx"
cmp -s "$TMP/o/new.tirx" "$TMP/o/expected" || fail "-o a new file: wrong contents"
chmod 640 "$TMP/o/new.tirx"
expect 0 "-o over a regular file" -- "$TIRXC" "$SCALE" -o "$TMP/o/new.tirx"
[ "$(stat -c %a "$TMP/o/new.tirx")" = 640 ] || fail "-o over a regular file: mode not kept"
echo keep >"$TMP/o/new.tirx.tmp"
expect 0 "-o beside a user's NAME.tmp" -- "$TIRXC" "$SCALE" -o "$TMP/o/new.tirx"
[ "$(cat "$TMP/o/new.tirx.tmp")" = keep ] || fail "-o clobbered the user's NAME.tmp"
[ "$(ls -A "$TMP/o" | wc -l)" = 3 ] || fail "-o left a temporary behind: $(ls -A "$TMP/o")"
ln -s new.tirx "$TMP/o/link.tirx"
expect 0 "-o through a symlink" -- "$TIRXC" "$SCALE" --emit=lowered -o "$TMP/o/link.tirx"
[ -L "$TMP/o/link.tirx" ] || fail "-o through a symlink replaced the link"
has "$TMP/o/new.tirx" "T.prim_func" "-o through a symlink writes its target"
cmp -s "$TMP/o/new.tirx" "$TMP/o/expected" && fail "-o through a symlink: target not rewritten"
mkfifo "$TMP/o/fifo"
cat "$TMP/o/fifo" >"$TMP/o/from_fifo" &
reader=$!
expect 0 "-o a FIFO" -- timeout 20 "$TIRXC" "$SCALE" -o "$TMP/o/fifo"
if [ -p "$TMP/o/fifo" ]; then
  wait $reader
else
  fail "-o a FIFO replaced it"
  kill $reader 2>/dev/null # it waits on the FIFO that is gone
fi
cmp -s "$TMP/o/from_fifo" "$TMP/o/expected" || fail "-o a FIFO: the reader got other bytes"
# A device node of our own, never the real /dev/null: if this regressed, the
# damage stays in $TMP.
if mknod "$TMP/o/null" c 1 3 2>/dev/null; then
  expect 0 "-o a character device" -- "$TIRXC" "$SCALE" -o "$TMP/o/null"
  [ -c "$TMP/o/null" ] || fail "-o a character device replaced it with a regular file"
fi
expect 5 "-o into a missing directory" -- "$TIRXC" "$SCALE" -o "$TMP/o/none/x.tirx"
has "$TMP/err" "cannot write" "-o into a missing directory"

# Launch bounds TVM refuses: a cluster bound without a min-blocks bound.
cat >"$TMP/cluster_bound.tirx" <<'TIRX'
@T.prim_func
def f(A: T.Buffer((4,), "int32")):
    T.device_entry(grid=(4, 1, 1), block=(128, 1, 1))
    T.attr({"tirx.launch_bounds_max_blocks_per_cluster": 1})
    bx = T.launch_thread("blockIdx.x", 4)
    A[bx] = A[bx] + 1
TIRX
expect 1 "max_blocks_per_cluster alone" -- "$TIRXC" "$TMP/cluster_bound.tirx" --emit=cuda
has "$TMP/err" "cluster_bound.tirx:1:1: error: tirx.max_blocks_per_cluster requires tirx.min_blocks_per_sm" \
  "max_blocks_per_cluster alone is a located error"

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all CLI checks passed"
