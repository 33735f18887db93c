#!/bin/sh
# nvcc_check.sh - compile every golden CUDA file (tests/golden/cuda/*.expected.cu)
# to PTX with nvcc for each architecture given (default: sm_90a sm_100a), so
# the expectations are known to be valid CUDA, not just stable text.
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
  for arch in "$@"; do
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
