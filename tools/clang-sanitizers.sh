#!/bin/sh
# Can CC build and run programs with the clang sanitizers that make fuzz and
# make test-tsan need? Exits 0 when every KIND works, 1 (and says which does
# not, on standard error) otherwise. Builds and runs one tiny program per
# KIND in a temporary directory; touches nothing else.
#
#   sh tools/clang-sanitizers.sh CC KIND...
#
# KIND: fuzzer (libFuzzer with ASan+UBSan: clang and libclang-rt-N-dev) or
# thread (ThreadSanitizer; also run, since some kernels' address-space
# layout stops old TSan runtimes at start-up).
set -u
cc=$1
shift
command -v "$cc" >/dev/null 2>&1 || { echo "no $cc" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tirx-sanitizers.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
ok=0
for kind in "$@"; do
  case $kind in
  fuzzer)
    printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
      'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
      'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return d && n > 99; }' >"$tmp/f.c"
    if ! "$cc" -fsanitize=fuzzer,address,undefined "$tmp/f.c" -o "$tmp/f" >"$tmp/log" 2>&1 ||
      ! "$tmp/f" -runs=10 >>"$tmp/log" 2>&1; then
      echo "$cc cannot build or run a libFuzzer target:" >&2
      tail -n 3 "$tmp/log" >&2
      ok=1
    fi
    ;;
  thread)
    printf '%s\n' '#include <pthread.h>' 'static int x;' \
      'static void *run(void *p) { x++; return p; }' \
      'int main(void) { pthread_t t; pthread_create(&t, 0, run, 0); pthread_join(t, 0); return x != 1; }' \
      >"$tmp/t.c"
    if ! "$cc" -fsanitize=thread "$tmp/t.c" -o "$tmp/t" -pthread >"$tmp/log" 2>&1 ||
      ! "$tmp/t" >>"$tmp/log" 2>&1; then
      echo "$cc cannot build or run a ThreadSanitizer program:" >&2
      tail -n 3 "$tmp/log" >&2
      ok=1
    fi
    ;;
  *)
    echo "unknown sanitizer kind '$kind' (fuzzer, thread)" >&2
    ok=1
    ;;
  esac
done
exit $ok
