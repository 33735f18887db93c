#!/bin/sh
# bench/run_cse.sh BUILD_DIR [BASELINE_BUILD_DIR] [RUNS]
#
# How the cse pass scales with the size of one block. For each N in
# BENCH_CSE_STMTS (default "4096 16384 32768 65536") it generates a kernel
# whose device code is one block of N statements, each with a repeated
# subexpression of its own (bench/gen_cse_block.py), into
# BUILD_DIR/bench/cse_block_N.tirx, and compiles it RUNS times (default 3)
# with `BUILD_DIR/bin/tirxc K --emit=cuda --time-passes -o /dev/null`,
# reporting the median of the cse pass's own time (from --time-passes) and of
# the whole command's wall time (monotonic clock around the process). With
# BASELINE_BUILD_DIR, its tirxc (an older build: `-` skips it) compiles the
# same files in the same run, its runs alternating with the first one's.
# Results go in docs/benchmarks.md ("cse on one large block").
set -eu

BUILD=${1:-build}
BASE=${2:--}
RUNS=${3:-3}
STMTS=${BENCH_CSE_STMTS:-4096 16384 32768 65536}
HERE=$(cd "$(dirname "$0")" && pwd)

for b in "$BUILD" ${BASE#-}; do
  if [ ! -x "$b/bin/tirxc" ]; then
    echo "run_cse.sh: $b/bin/tirxc not found; build first" >&2
    exit 2
  fi
done
command -v python3 >/dev/null 2>&1 || { echo "run_cse.sh: python3 is required" >&2; exit 2; }

mkdir -p "$BUILD/bench"
echo "== machine"
echo "date:    $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "cpu:     $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1) ($(nproc) logical CPUs)"
echo "memory:  $(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo 2>/dev/null)"
echo "cc:      $(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$BUILD/CMakeCache.txt" 2>/dev/null) ($(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$BUILD/CMakeCache.txt" 2>/dev/null))"
echo

FILES=""
for n in $STMTS; do
  f="$BUILD/bench/cse_block_$n.tirx"
  python3 "$HERE/gen_cse_block.py" --stmts "$n" -o "$f"
  FILES="$FILES $f"
done

python3 - "$BUILD/bin/tirxc" "$BASE" "$RUNS" $FILES <<'EOF'
import os, re, statistics, subprocess, sys, time

new, base, runs, files = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
tools = [("new", new)] + ([("baseline", os.path.join(base, "bin", "tirxc"))] if base != "-" else [])


def once(tirxc, path):
    t0 = time.perf_counter()
    p = subprocess.run([tirxc, path, "--emit=cuda", "--time-passes", "-o", os.devnull],
                       capture_output=True, text=True)
    wall = (time.perf_counter() - t0) * 1e3
    if p.returncode != 0:
        sys.exit("run_cse.sh: %s failed on %s:\n%s" % (tirxc, path, p.stderr))
    cse = float(re.search(r"^\s*cse\s+([0-9.]+)", p.stderr, re.M).group(1))
    return cse, wall


print("== tirxc K --emit=cuda --time-passes -o /dev/null, median of %d (ms)" % runs)
print("  %-8s %8s %12s %12s %12s %12s" % ("stmts", "bytes", "cse new", "wall new",
                                         "cse base", "wall base"))
for path in files:
    n = int(re.search(r"_(\d+)\.tirx$", path).group(1))
    res = {name: [] for name, _ in tools}
    for _ in range(runs):
        for name, t in tools:  # alternate, so that drift hits both alike
            res[name].append(once(t, path))
    row = []
    for name, _ in tools:
        row += [statistics.median(r[0] for r in res[name]), statistics.median(r[1] for r in res[name])]
    cells = ["%12.2f" % v for v in row] + ["%12s" % "-"] * (4 - len(row))
    print("  %-8d %8d %s" % (n, os.path.getsize(path), " ".join(cells)))
    print("RESULT cse_%d %s" % (n, " ".join("%.3f" % v for v in row)))
EOF
