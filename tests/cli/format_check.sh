#!/bin/sh
# format_check.sh SOURCE_DIR - every tracked C file is formatted as .clang-format
# says. Skips (77) without clang-format or outside a git checkout.
set -u
cd "${1:?usage: format_check.sh SOURCE_DIR}" || exit 2
command -v clang-format >/dev/null 2>&1 || { echo "SKIP: no clang-format"; exit 77; }
files=$(git ls-files '*.c' '*.h' 2>/dev/null) || { echo "SKIP: not a git checkout"; exit 77; }
[ -n "$files" ] || { echo "SKIP: no files"; exit 77; }
bad=0
for f in $files; do
  clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || { echo "not formatted: $f"; bad=1; }
done
[ $bad = 0 ] && echo "format: ok" || echo "run: clang-format -i \$(git ls-files '*.c' '*.h')"
exit $bad
