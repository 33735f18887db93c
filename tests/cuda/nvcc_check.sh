#!/bin/sh
# nvcc_check.sh - compile every golden CUDA file (tests/golden/cuda/*.expected.cu)
# to PTX with nvcc for each architecture given (default: sm_90a sm_100a), so
# the expectations are known to be valid CUDA, not just stable text.
#
# A golden whose NAME.tirx has a line `# ptxas-archs: sm_100a` (arch-specific
# instructions, as for ptxas_check.sh) is compiled only for the listed archs:
# nvcc -ptx runs ptxas's checks, which reject such instructions elsewhere.
#
# usage: nvcc_check.sh GOLDEN_DIR [ARCH...]
# Exits 77 (ctest SKIP_RETURN_CODE) when no nvcc is found: $NVCC, then PATH,
# then $CUDA_HOME/bin, then /usr/local/cuda/bin.
set -u
dir=${1:?usage: nvcc_check.sh GOLDEN_DIR [ARCH...]}
shift
[ $# -gt 0 ] || set -- sm_90a sm_100a

nvcc=${NVCC:-}
[ -n "$nvcc" ] || nvcc=$(command -v nvcc 2>/dev/null || true)
[ -n "$nvcc" ] || { [ -n "${CUDA_HOME:-}" ] && [ -x "$CUDA_HOME/bin/nvcc" ] && nvcc=$CUDA_HOME/bin/nvcc; }
[ -n "$nvcc" ] || { [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc; }
if [ -z "$nvcc" ]; then
  echo "SKIP: nvcc not found (set NVCC or CUDA_HOME)"
  exit 77
fi

status=0
count=0
for cu in "$dir"/*.expected.cu; do
  [ -e "$cu" ] || continue
  src=${cu%.expected.cu}.tirx
  only=
  [ -f "$src" ] && only=$(sed -n 's|^# ptxas-archs: *||p' "$src" | head -n 1)
  for arch in "$@"; do
    case " $only " in
    "  " | *" $arch "*) ;;
    *) continue ;;
    esac
    count=$((count + 1))
    # -x cu: the files end in .cu already; -Werror all-warnings keeps them clean.
    if ! out=$("$nvcc" -x cu -arch="$arch" -ptx -Werror all-warnings -o /dev/null "$cu" 2>&1); then
      echo "FAIL $arch $cu"
      echo "$out"
      status=1
    fi
  done
done
echo "nvcc_check: $count compilations, $([ $status -eq 0 ] && echo ok || echo FAILED)"
exit $status
