#!/bin/sh
# footprint.sh LIB - the CUDA path of libtirx.so stays small and self-contained:
# under 5 MB (stripped), links neither LLVM nor the CUDA driver/NVRTC (both are
# dlopen'ed), and imports no exit/abort (the library never ends the process).
set -u
lib=${1:?usage: footprint.sh LIBTIRX_SO}
fail=0
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
strip -o "$tmp" "$lib" 2>/dev/null || cp "$lib" "$tmp"
size=$(wc -c <"$tmp")
echo "libtirx.so stripped: $size bytes"
[ "$size" -lt 5000000 ] || { echo "FAIL: over 5 MB"; fail=1; }
needed=$(objdump -p "$lib" 2>/dev/null | awk '/NEEDED/ {print $2}')
echo "needs: $(echo $needed)"
for n in $needed; do
  case $n in
    *LLVM*|*libcuda*|*nvrtc*|*cudart*) echo "FAIL: links $n"; fail=1 ;;
  esac
done
imports=$(nm -D --undefined-only "$lib" | awk '{print $NF}' | sed 's/@.*//')
for sym in exit _exit _Exit abort quick_exit; do
  if echo "$imports" | grep -qx "$sym"; then echo "FAIL: imports $sym"; fail=1; fi
done
[ $fail = 0 ] && echo "footprint: ok"
exit $fail
