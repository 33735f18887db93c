#!/bin/sh
# check_symbols.sh - libtirx_rt holds nothing of the compiler: no symbol of
# the frontend, the passes, the backends or the compile API, in either the
# shared or the static library. The same names must be found in libtirx
# (the check can fail).
#
#   check_symbols.sh LIBDIR
set -eu
dir=$1
pattern='tirx_parse_|tirx_compile|tx_run_pipeline|tx_pass_|tx_codegen_|tx_nvrtc_|tx_launch_build|tx_print_module|tx_build_|txpy'
for lib in "$dir/libtirx_rt.so" "$dir/libtirx_rt.a"; do
  found=$(nm "$lib" 2>/dev/null | grep -E " [TtDdBbRr] ($pattern)" || true)
  if [ -n "$found" ]; then
    echo "FAIL: $lib holds compiler symbols:"
    echo "$found" | head -20
    exit 1
  fi
  n=$(nm "$lib" | grep -c " [Tt] " || true)
  echo "ok: $lib: $n functions, none of the compiler's"
done
n=$(nm "$dir/libtirx.so" | grep -cE " [Tt] ($pattern)" || true)
if [ "$n" -lt 5 ]; then
  echo "FAIL: the pattern finds only $n compiler functions in libtirx.so: the check is broken"
  exit 1
fi
echo "ok: the same pattern finds $n compiler functions in libtirx.so"
