#!/bin/sh
# bench/run.sh BUILD_DIR [ITERATIONS]
#
# Generates a ~100,000-line TIRx module (bench/gen_module.py, fixed seed) into
# BUILD_DIR/bench/module100k.tirx, times tirx-c's parse and print on it
# (BUILD_DIR/bin/bench_parse) and, in the same run, CPython's ast.parse of the
# same text, with the same number of iterations (default 5, medians), then
# prints a comparison. `make bench` runs `sh bench/run.sh build`. At the end it
# runs bench/run_compile.sh BUILD_DIR (compile latency vs nvcc -ptx).
# Environment: BENCH_LINES (default 100000), BENCH_SEED (default 20240601).
set -eu

BUILD=${1:-build}
ITERS=${2:-5}
LINES=${BENCH_LINES:-100000}
SEED=${BENCH_SEED:-20240601}
HERE=$(cd "$(dirname "$0")" && pwd)
BENCH_BIN="$BUILD/bin/bench_parse"
MODULE="$BUILD/bench/module100k.tirx"

if [ ! -x "$BENCH_BIN" ]; then
  echo "run.sh: $BENCH_BIN not found; build first (make build)" >&2
  exit 2
fi
command -v python3 >/dev/null 2>&1 || { echo "run.sh: python3 is required" >&2; exit 2; }

mkdir -p "$BUILD/bench"
python3 "$HERE/gen_module.py" --lines "$LINES" --seed "$SEED" -o "$MODULE"

echo "== machine"
echo "date:    $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "cpu:     $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1), family $(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -n 1) model $(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -n 1) ($(nproc) logical CPUs)"
echo "memory:  $(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo 2>/dev/null)"
echo "python:  $(python3 -c 'import sys; print(sys.version.split()[0])')"
echo "cc:      $(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$BUILD/CMakeCache.txt" 2>/dev/null) ($(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$BUILD/CMakeCache.txt" 2>/dev/null))"

echo
echo "== tirx-c"
TIRX_OUT=$("$BENCH_BIN" "$MODULE" -n "$ITERS")
printf '%s\n' "$TIRX_OUT" | grep -v '^RESULT '

echo
echo "== CPython ast.parse"
PY_OUT=$(python3 - "$MODULE" "$ITERS" <<'EOF'
import ast, gc, resource, statistics, sys, time

path, iters = sys.argv[1], int(sys.argv[2])
with open(path, encoding="utf-8") as f:
    text = f.read()
nbytes, nlines = len(text.encode("utf-8")), text.count("\n")
rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def run():
    times = []
    for _ in range(iters):
        t0 = time.perf_counter()
        tree = ast.parse(text, filename=path)
        t1 = time.perf_counter()
        times.append((t1 - t0) * 1e3)
        del tree  # freeing the tree is not timed (as context destroy is not for tirx-c)
    return statistics.median(times), min(times)


# As a program runs it (cyclic GC on), then with the GC off: the GC passes
# triggered by the many AST objects are a large part of ast.parse's time.
med, best = run()
gc.disable()
med_nogc, best_nogc = run()
gc.enable()
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print("CPython %s: ast.parse, %d bytes, %d lines, %d iterations" % (
    sys.version.split()[0], nbytes, nlines, iters))
print("  %-22s %10s %10s %10s %12s" % ("stage (median)", "ms", "min ms", "MB/s", "lines/s"))
for name, m, b in (("ast.parse", med, best), ("ast.parse (gc off)", med_nogc, best_nogc)):
    print("  %-22s %10.2f %10.2f %10.2f %12.0f" % (
        name, m, b, nbytes / 1e6 / (m / 1e3), nlines / (m / 1e3)))
print("  peak RSS: %d KiB (%d KiB after reading the input)" % (rss, rss_before))
print("RESULT py_parse_ms %.3f" % med)
print("RESULT py_parse_nogc_ms %.3f" % med_nogc)
print("RESULT py_peak_rss_kib %d" % rss)
print("RESULT py_version %s" % sys.version.split()[0])
EOF
)
printf '%s\n' "$PY_OUT" | grep -v '^RESULT '

get() { printf '%s\n%s\n' "$TIRX_OUT" "$PY_OUT" | awk -v k="$1" '$1 == "RESULT" && $2 == k {print $3}'; }
PARSE=$(get parse_ms); LEX=$(get lexparse_ms); PRINT=$(get print_ms); TOTAL=$(get total_ms)
PY=$(get py_parse_ms); PYNOGC=$(get py_parse_nogc_ms)

echo
echo "== comparison (medians of $ITERS; ratio = CPython ast.parse time / tirx-c time, > 1 means tirx-c is faster)"
awk -v lex="$LEX" -v parse="$PARSE" -v prt="$PRINT" -v total="$TOTAL" -v py="$PY" -v pyng="$PYNOGC" 'BEGIN {
  # The goal is judged against the faster of the two CPython timings.
  best = pyng < py ? pyng : py
  printf "  %-30s %10s %14s %14s\n", "tirx-c", "ms", "vs ast.parse", "vs gc off"
  printf "  %-30s %10.2f %13.2fx %13.2fx\n", "lex+parse to AST", lex, py / lex, pyng / lex
  printf "  %-30s %10.2f %13.2fx %13.2fx\n", "parse (lex+parse+build IR)", parse, py / parse, pyng / parse
  printf "  %-30s %10.2f %13.2fx %13.2fx\n", "parse + print", total, py / total, pyng / total
  printf "  %-30s %10.2f\n", "(print alone)", prt
  printf "  %-30s %10.2f\n", "CPython ast.parse", py
  printf "  %-30s %10.2f\n", "CPython ast.parse (gc off)", pyng
  if (total <= best) print "goal (tirx-c parse+print no slower than ast.parse): MET"
  else print "goal (tirx-c parse+print no slower than ast.parse): NOT MET"
}'

sh "$HERE/run_compile.sh" "$BUILD"
