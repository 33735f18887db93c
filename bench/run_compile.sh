#!/bin/sh
# bench/run_compile.sh BUILD_DIR [ITERATIONS]
#
# Compile latency, text -> PTX. Generates a ~200-line kernel
# (bench/gen_kernel.py) into BUILD_DIR/bench/kernel200.tirx, runs
# BUILD_DIR/bin/bench_compile on it and on each doc kernel in
# tests/golden/lowering (ITERATIONS each, default 20, medians), which also
# writes each kernel's CUDA C to BUILD_DIR/bench/cuda/. In the same run it
# times `nvcc -ptx -arch=$ARCH -std=c++17` on those same .cu files (median of
# NVCC_RUNS, default 5, wall clock) and prints the comparison and the goals.
# bench/run.sh calls it at its end. Environment: BENCH_ARCH (default sm_90a),
# NVCC_RUNS (default 5), CUDA_HOME (default /usr/local/cuda).
set -eu

BUILD=${1:-build}
ITERS=${2:-20}
ARCH=${BENCH_ARCH:-sm_90a}
NVCC_RUNS=${NVCC_RUNS:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
BIN="$BUILD/bin/bench_compile"
CUDA_ROOT=${CUDA_HOME:-/usr/local/cuda}

if [ ! -x "$BIN" ]; then
  echo "run_compile.sh: $BIN not found; build first (make build)" >&2
  exit 2
fi
NVCC=$(command -v nvcc 2>/dev/null || true)
if [ -z "$NVCC" ] && [ -x "$CUDA_ROOT/bin/nvcc" ]; then NVCC="$CUDA_ROOT/bin/nvcc"; fi
if [ -z "$NVCC" ] && ! ls "$CUDA_ROOT"/lib*/libnvrtc.so* >/dev/null 2>&1; then
  echo "run_compile.sh: no CUDA toolkit (nvcc, libnvrtc) under $CUDA_ROOT; compile benchmark skipped"
  exit 0
fi

mkdir -p "$BUILD/bench/cuda"
KERNEL="$BUILD/bench/kernel200.tirx"
python3 "$HERE/gen_kernel.py" -o "$KERNEL"
set -- "$KERNEL"
for f in "$ROOT"/tests/golden/lowering/*.tirx; do
  case "$f" in *.expected.*) ;; *) set -- "$@" "$f" ;; esac
done

echo
echo "== compile latency: machine"
echo "date:    $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "cpu:     $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1) ($(nproc) logical CPUs)"
echo "memory:  $(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo 2>/dev/null)"
echo "nvcc:    ${NVCC:-none} ($([ -n "$NVCC" ] && "$NVCC" --version | sed -n 's/^Cuda compilation tools, //p'))"

echo
echo "== tirx-c: bench_compile -n $ITERS --arch $ARCH (text -> PTX through NVRTC)"
OUT=$("$BIN" -n "$ITERS" --arch "$ARCH" --cuda-dir "$BUILD/bench/cuda" -v "$@")
printf '%s\n' "$OUT" | grep -v '^RESULT '

[ -n "$NVCC" ] || { echo "run_compile.sh: nvcc not found; no peer measured"; exit 0; }

echo
echo "== nvcc -ptx -arch=$ARCH -std=c++17 on the same .cu files (median of $NVCC_RUNS, wall clock)"
printf '%s\n' "$OUT" | python3 -c '
import os, statistics, subprocess, sys, tempfile, time
nvcc, arch, runs, cudadir = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
res = {}
for line in sys.stdin:
    f = line.split()
    if len(f) == 4 and f[0] == "RESULT":
        res.setdefault(f[1], {})[f[2]] = float(f[3])
tmp = tempfile.mkdtemp(prefix="tirx-nvcc-")
rows = []
for k, r in res.items():
    cu = os.path.join(cudadir, k + ".cu")
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([nvcc, "-ptx", "-arch=" + arch, "-std=c++17", cu, "-o",
                        os.path.join(tmp, k + ".ptx")], check=True)
        times.append((time.perf_counter() - t0) * 1e3)
    rows.append((k, r, statistics.median(times), min(times)))
print("%-28s %9s %9s %9s %11s %11s %10s" % ("kernel", "nvcc", "nvcc min", "NVRTC", "tirx-c all",
      "all/nvcc", "own/nvcc"))
for k, r, nv, nvmin in rows:
    print("%-28s %9.2f %9.2f %9.2f %11.2f %10.2fx %9.2f%%" % (k, nv, nvmin, r["nvrtc_ms"],
          r["total_ms"], r["total_ms"] / nv, 100 * r["own_ms"] / nv))
print("ms, medians; tirx-c all = its whole text -> PTX (own + NVRTC); own/nvcc = tirx-c own stages"
      " as a share of nvcc -ptx alone")
k, r, nv, _ = rows[0]
own, pct = r["own_ms"], 100 * r["own_ms"] / r["total_ms"]
print()
print("goal 1 (%s, %d lines: tirx-c own stages < 1 ms): %.3f ms -> %s"
      % (k, r["lines"], own, "MET" if own < 1 else "NOT MET"))
print("goal 2 (%s: own stages < 10%% of text -> PTX): %.2f%% -> %s"
      % (k, pct, "MET" if pct < 10 else "NOT MET"))
worst = max(rows, key=lambda x: x[1]["own_ms"] / x[1]["total_ms"])
print("        largest own share over all %d kernels: %.2f%% (%s)"
      % (len(rows), 100 * worst[1]["own_ms"] / worst[1]["total_ms"], worst[0]))
for f in os.listdir(tmp):
    os.unlink(os.path.join(tmp, f))
os.rmdir(tmp)
' "$NVCC" "$ARCH" "$NVCC_RUNS" "$BUILD/bench/cuda"
