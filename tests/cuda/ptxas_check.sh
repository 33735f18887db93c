#!/bin/sh
# ptxas_check.sh DIR - assemble every DIR/*.ptx and DIR/*.cu with ptxas for
# each architecture in $PTXAS_ARCHS (default "sm_90a sm_100a"), so that PTX
# the GPU machine would JIT is known to assemble without needing a GPU.
#
#   *.cu   nvcc -ptx -arch=ARCH first (NVRTC-style: -std=c++17), then ptxas.
#          A kernel that uses arch-specific instructions (wgmma: sm_90a;
#          tcgen05: sm_100a) names the archs it is for in a line
#          `// ptxas-archs: sm_90a` in the .cu, or `# ptxas-archs: sm_90a`
#          in the sibling NAME.tirx of a NAME.expected.cu golden; only
#          those of $PTXAS_ARCHS are checked, the others are skipped.
#   *.ptx  assembled as is; a PTX whose .target is arch-specific (sm_90a)
#          only assembles for that exact arch, so other archs are skipped.
#
# Exit status: 0 all assembled, 1 any failure, 77 (ctest's SKIP_RETURN_CODE)
# when ptxas is missing or DIR holds nothing to check.
set -u
dir=${1:?usage: ptxas_check.sh DIR}
archs=${PTXAS_ARCHS:-"sm_90a sm_100a"}

cuda=${CUDA_HOME:-/usr/local/cuda}
find_tool() {
  if [ -x "$cuda/bin/$1" ]; then echo "$cuda/bin/$1"; return; fi
  command -v "$1" 2>/dev/null || true
}
ptxas=$(find_tool ptxas)
nvcc=$(find_tool nvcc)
if [ -z "$ptxas" ]; then
  echo "SKIP: ptxas not found (looked in $cuda/bin and PATH); set CUDA_HOME"
  exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptxas_check.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

pass=0 fail=0 skip=0
ok()   { pass=$((pass + 1)); echo "PASS $1"; }
bad()  { fail=$((fail + 1)); echo "FAIL $1"; sed 's/^/    /' "$tmp/err"; }
skp()  { skip=$((skip + 1)); echo "SKIP $1 ($2)"; }

assemble() { # PTX ARCH LABEL
  if "$ptxas" -arch="$2" "$1" -o "$tmp/out.cubin" >"$tmp/err" 2>&1; then ok "$3"; else bad "$3"; fi
}

# The archs a .cu is restricted to, or nothing.
cu_archs() {
  m=$(sed -n 's|^// ptxas-archs: *||p' "$1" | head -n 1)
  src=${1%.expected.cu}.tirx
  if [ -z "$m" ] && [ "$src" != "$1" ] && [ -f "$src" ]; then
    m=$(sed -n 's|^# ptxas-archs: *||p' "$src" | head -n 1)
  fi
  echo "$m"
}

found=0
for f in "$dir"/*.cu "$dir"/*.ptx; do
  [ -e "$f" ] || continue
  found=1
  base=$(basename "$f")
  for arch in $archs; do
    label="$base [$arch]"
    case "$f" in
    *.cu)
      if [ -z "$nvcc" ]; then skp "$label" "nvcc not found"; continue; fi
      only=$(cu_archs "$f")
      case " $only " in
      "  ") ;;
      *" $arch "*) ;;
      *) skp "$label" "uses instructions for $only only"; continue ;;
      esac
      ptx="$tmp/${base%.cu}.$arch.ptx"
      if ! "$nvcc" -ptx -std=c++17 -arch="$arch" "$f" -o "$ptx" >"$tmp/err" 2>&1; then
        bad "$label (nvcc -ptx)"
        continue
      fi
      assemble "$ptx" "$arch" "$label"
      ;;
    *.ptx)
      target=$(sed -n 's/^[[:space:]]*\.target[[:space:]]*\([a-z0-9_]*\).*/\1/p' "$f" | head -n 1)
      case "$target" in
      *a | *f)
        if [ "$target" != "$arch" ]; then skp "$label" ".target $target is specific to $target"; continue; fi
        ;;
      esac
      assemble "$f" "$arch" "$label"
      ;;
    esac
  done
done

if [ "$found" = 0 ]; then
  echo "SKIP: no .cu or .ptx files in $dir"
  exit 77
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ] || exit 1
[ "$pass" -gt 0 ] || exit 77
exit 0
