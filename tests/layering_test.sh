#!/bin/sh
# layering_test.sh - cmake/check_layers.cmake accepts the tree and rejects an
# include across the arrows, naming the file and the include.
# usage: layering_test.sh SOURCE_ROOT
set -eu
src=${1:?usage: layering_test.sh SOURCE_ROOT}
cmake -DSRC="$src" -P "$src/cmake/check_layers.cmake"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/passes" "$tmp/ir"
printf '#include "ir/ir.h"\n#include "target/target.h"\n' >"$tmp/passes/fine.c"
printf '#include "ir/ir.h"\n  #include "frontend/ast.h"\n' >"$tmp/passes/wrong.c"
printf '#include "passes/pass.h"\n' >"$tmp/ir/upward.h"
if out=$(cmake -DSRC="$tmp" -P "$src/cmake/check_layers.cmake" 2>&1); then
  echo "FAIL: a pass including the frontend and ir/ including passes/ were accepted"
  exit 1
fi
for want in 'passes/wrong.c: #include "frontend/ast.h"' 'ir/upward.h: #include "passes/pass.h"'; do
  case $out in
  *"$want"*) ;;
  *) echo "FAIL: the report does not name '$want':"; echo "$out"; exit 1 ;;
  esac
done
case $out in *fine.c*) echo "FAIL: fine.c reported:"; echo "$out"; exit 1 ;; esac
echo "layering: the tree keeps the arrows; wrong includes are named"
