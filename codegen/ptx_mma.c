/*
 * ptx_mma.c - CUDA C for TVM's T.ptx helpers of one family: warpgroup and warp matrix
 * multiply-accumulate (wgmma.*, mma*) and the matrix fragment moves ldmatrix/stmatrix.
 *
 * Each entry follows the operand convention of the TVM helper of the same
 * name; forms not covered are located errors, never guesses.
 */
#include "codegen/cuda_call.h"

const cuda_call_table cuda_ptx_mma_calls = {"mma", NULL, 0};
