#!/bin/sh
# demo.sh - `make demo`: compile every examples/*.tirx with tirxc and show the
# canonical TVMScript plus the per-stage timing line, then the CUDA of one
# kernel, and, where a GPU is present, `tirxc run` on every example that
# lowers (tile primitives do not lower yet).
# Usage: tools/demo.sh PATH/TO/tirxc
set -u
tirxc=${1:-build/bin/tirxc}
root=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -x "$tirxc" ]; then
  echo "demo: no tirxc at '$tirxc' (run 'make build' first)" >&2
  exit 2
fi
# Run from the repository root so diagnostics name examples/NAME.tirx.
case $tirxc in /*) ;; *) tirxc="$(pwd)/$tirxc" ;; esac
cd "$root" || exit 2
found=0
failed=0
for f in examples/*.tirx; do
  [ -f "$f" ] || continue # the glob matched nothing
  found=$((found + 1))
  echo "==> $f"
  # --time writes its line to stderr; fold it in so it follows the output.
  if ! "$tirxc" --time "$f" 2>&1; then
    failed=$((failed + 1))
  fi
  echo
done
if [ "$found" -eq 0 ]; then
  echo "demo: no examples in $root/examples (nothing to show)"
  exit 0
fi
echo "demo: $found example(s), $failed failed"
[ "$failed" -eq 0 ] || exit 1

echo "==> examples/scale.tirx --emit=cuda"
"$tirxc" examples/scale.tirx --emit=cuda || exit 1
echo

# tirxc run needs a CUDA GPU; a machine without one shows why and moves on.
for f in examples/*.tirx; do
  "$tirxc" "$f" --emit=lowered >/dev/null 2>&1 || continue
  echo "==> tirxc run $f"
  out=$("$tirxc" run "$f" --repeat 10 2>&1)
  rc=$?
  echo "$out"
  if [ $rc -ne 0 ]; then
    case $out in
      *"no usable CUDA GPU"*) echo "demo: no GPU here, skipping tirxc run"; break ;;
      *) exit 1 ;;
    esac
  fi
done
