#!/bin/sh
# compile_all.sh TIRXC SRC_DIR OUT_DIR - `tirxc --emit=c-launcher` for every
# doc kernel in tests/golden/lowering; each launcher must compile warning-free
# as C11 with gcc (and clang when installed) and its header must also parse as
# C++. Checks the CLI's usage errors too. Exits 77 (skip) when NVRTC, which
# produces the embedded PTX, is not available.
set -u
tirxc=$1 src=$2 out=$3
rm -rf "$out" && mkdir -p "$out" || exit 1
fail=0

if ! "$tirxc" "$src/tests/golden/lowering/scale.tirx" --emit=ptx --arch=sm_90a \
    -o "$out/probe.ptx" 2>"$out/probe.err"; then
  echo "skip: no NVRTC to compile the embedded PTX:"; cat "$out/probe.err"
  exit 77
fi

# Usage errors: the header's name comes from -o.
for args in "" "-o -"; do
  # shellcheck disable=SC2086
  "$tirxc" "$src/tests/golden/lowering/scale.tirx" --emit=c-launcher $args 2>"$out/usage.err"
  rc=$?
  if [ $rc -ne 2 ] || ! grep -q "use -o OUT.c" "$out/usage.err"; then
    echo "FAIL: --emit=c-launcher $args: exit $rc"; cat "$out/usage.err"; fail=1
  fi
done
"$tirxc" "$src/tests/golden/lowering/scale.tirx" --emit=ptx --embed=cubin -o "$out/x" 2>/dev/null
[ $? -eq 2 ] || { echo "FAIL: --embed without c-launcher accepted"; fail=1; }
"$tirxc" "$src/tests/golden/lowering/scale.tirx" --emit=c-launcher -o "$out/9bad.c" 2>/dev/null
[ $? -eq 2 ] || { echo "FAIL: -o 9bad.c accepted (not a C identifier)"; fail=1; }

WARN="-std=c11 -Wall -Wextra -Werror -pedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes"
n=0
for f in "$src"/tests/golden/lowering/*.tirx; do
  case $f in *.expected.*) continue ;; esac
  name=$(basename "$f" .tirx)
  n=$((n + 1))
  for embed in ptx cubin; do
    c="$out/${name}_$embed.c"
    if ! "$tirxc" "$f" --emit=c-launcher --arch=sm_90a --embed=$embed -o "$c"; then
      echo "FAIL: $name ($embed): tirxc"; fail=1; continue
    fi
    [ -f "${c%.c}.h" ] || { echo "FAIL: $name: no header"; fail=1; continue; }
    # Nothing from tirx-c may be needed: only the generated files' own directory.
    for cc in gcc clang; do
      command -v $cc >/dev/null 2>&1 || continue
      # shellcheck disable=SC2086
      $cc $WARN -c "$c" -o "${c%.c}.$cc.o" || { echo "FAIL: $name ($embed): $cc"; fail=1; }
    done
    if command -v g++ >/dev/null 2>&1; then
      g++ -std=c++17 -Wall -Wextra -Werror -fsyntax-only -x c++ "${c%.c}.h" ||
        { echo "FAIL: $name: header as C++"; fail=1; }
    fi
  done
done
[ $n -gt 0 ] || { echo "FAIL: no kernels found"; fail=1; }
[ $fail -eq 0 ] && echo "compile_all: $n launchers (PTX and cubin) compile cleanly"
exit $fail
