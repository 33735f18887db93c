/*
 * ptx_tcgen05.c - CUDA C for TVM's T.ptx helpers of one family: Blackwell tensor-core generation 5
 * (tcgen05.*: TMEM allocation, mma, ld/st, cp, commit, descriptors) and cluster launch control
 * (clc_*).
 *
 * Each entry follows the operand convention of the TVM helper of the same
 * name; forms not covered are located errors, never guesses.
 */
#include "codegen/cuda_call.h"

const cuda_call_table cuda_ptx_tcgen05_calls = {"tcgen05", NULL, 0};
